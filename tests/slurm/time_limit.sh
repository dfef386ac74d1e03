#!/usr/bin/env bash
# A collectives job on the test Slurm of launch/slurm-up whose cases outlast its one-minute
# time limit, inside a long allreduce:
#
#   tests/slurm/time_limit.sh limit BINARY [N]     the limit itself ends it (Slurm's SIGTERM,
#                                                  then srun's): the reason is in results.json
#   tests/slurm/time_limit.sh warning BINARY [N]   the script's early warning (SIGUSR1) comes
#                                                  first: the case in flight is kept, the job
#                                                  leaves with 138
#
# N jobs one after another (default 1, what CTest runs: each takes a minute and a half); every
# one must pass, and a line per job and a tally say how each ended.
# Exit status 77 (CTest's SKIP_RETURN_CODE) when Slurm cannot be brought up here.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
export SPLITSTEP_SLURM_STATE=${SPLITSTEP_SLURM_STATE:-/tmp/splitstep-slurm-test}
export SPLITSTEP_SLURM_PORT=${SPLITSTEP_SLURM_PORT:-6927}
export SLURM_CONF=$SPLITSTEP_SLURM_STATE/etc/slurm.conf
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 limit|warning BINARY [REPEATS]" >&2; exit 2; }
mode=$1 binary=$(readlink -f "$2") repeats=${3:-1}
[[ $repeats =~ ^[1-9][0-9]*$ ]] || { echo "$0: REPEATS must be a positive integer, not '$repeats'" >&2; exit 2; }

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

up_status=0
up=$("$root/launch/slurm-up" --nodes 1 2>&1) || up_status=$?
if [ "$up_status" -eq 77 ]; then
  echo "SKIP: Slurm cannot be brought up here: ${up##*cannot bring up Slurm here: }"
  exit 77
fi
[ "$up_status" -eq 0 ] || fail "launch/slurm-up exited with status $up_status: $up"

case $mode in
  # A signal the batch shell ignores (SIGURG) in place of the script's early warning: the limit
  # itself ends the job.
  limit) signal=(--signal=B:URG@10) ;;
  # The script's own @120 would come at once under a 1-minute limit, while the ranks are still
  # loading LibTorch, before any has its handler (SIGUSR1's default ends a process): 30 s before
  # the end lands inside the first case, as the script's 120 s do in a real job.
  warning) signal=(--signal=B:USR1@30) ;;
  *) fail "no mode '$mode'" ;;
esac

cd "$root"
# One job, checked; fails (exits) on the first job that does not end as it should.
run_once() {
  work=$(mktemp -d /tmp/splitstep-slurm-limit.XXXXXX)
  chmod 755 "$work"
  start=$SECONDS
  sbatch_status=0
  # Cases of 20 s at least, of 16 and 128 MiB: the limit falls inside one.
  env SPLITSTEP="$binary" SPLITSTEP_OUT="$work" SPLITSTEP_LAUNCHER=srun \
    SPLITSTEP_ARGS="--device cpu --bytes 16M,128M --min-time 20s --max-time 40s --timeout 600s" \
    timeout 300 sbatch --wait --parsable --time 1 --ntasks 2 "${signal[@]}" \
    --output "$work/slurm-%j.out" slurm/collectives.sbatch >"$work/sbatch.txt" 2>&1 || sbatch_status=$?
  took=$((SECONDS - start))
  job=$(grep -Eom1 '^[0-9]+' "$work/sbatch.txt" || true)
  [ -n "$job" ] || fail "sbatch did not submit the job: $(cat "$work/sbatch.txt")"
  json=$work/$job-collectives/results.json
  [ -s "$json" ] || fail "no $json: $(tail -20 "$work/slurm-$job.out")"
  state=$(sacct -j "$job" -X -n -o State 2>/dev/null | tr -d ' ' || true)
  echo "job $job: sbatch status $sbatch_status after $took s, state ${state:-unknown}"
  python3 - "$json" "$mode" <<'PY' || fail "results.json: $(tail -20 "$work/slurm-$job.out")"
import json, re, sys
doc = json.load(open(sys.argv[1]))
ended, mode = doc["ended"] or "", sys.argv[2]
assert doc["complete"] is False, doc["complete"]
if mode == "limit":
    assert re.match(r"interrupted \(SIGTERM( from [^)]+)?\) during ", ended), ended
else:
    assert re.match(r"warned \(SIGUSR1 from [^)]+\) during .*: the run ends once this case is kept$", ended), ended
    assert len(doc["cases"]) >= 1, "the case in flight was not kept"
print("json ok: %d cases kept; ended: %s" % (len(doc["cases"]), ended))
PY
  if [ "$mode" = warning ]; then
    grep -q "splitstep exited with status 138" "$work/slurm-$job.out" \
      || fail "the job did not leave with status 138: $(tail -5 "$work/slurm-$job.out")"
  fi
  rm -rf "$work"
}

trap 'rm -rf "${work:-}"' EXIT
for ((i = 1; i <= repeats; i++)); do
  echo "== $mode: job $i of $repeats"
  run_once
done
echo "ok: $mode, $repeats of $repeats jobs"
