#!/usr/bin/env bash
# Slurm's early warning (SIGUSR1, which the batch scripts pass on to the launcher): the case in
# flight is finished and kept, the reason is in the file from the moment the warning arrived,
# and every rank leaves after the same case with status 138 (128 + SIGUSR1), mpirun's too.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
dir=$(mktemp -d)
job=
trap '[ -n "$job" ] && end_job "$job"; rm -rf "$dir"' EXIT
json=$dir/w.json

# shellcheck disable=SC2086
"$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" "${SLOW_SWEEP[@]}" --timeout 60s \
  --json "$json" >"$dir/w.out" 2>&1 &
job=$!
wait_for_cases "$json" 2 60 "$job" || fail "no two cases within 60 s: $(tail -5 "$dir/w.out")"
pids=()
for r in $(seq 0 $((ranks - 1))); do pids[r]=$(rank_pid "$job" "$r") || fail "no process of rank $r"; done
before=$(json_cases "$json")
sent=$SECONDS
kill -USR1 "$job"
# The reason is written when the warning arrives, before the case in flight ends (a case lasts
# at least a second here).
sleep 0.3
python3 - "$json" <<'PY' || fail "the reason is not in the file at once"
import json, re, sys
ended = json.load(open(sys.argv[1]))["ended"] or ""
assert re.match(r"warned \(SIGUSR1 from [^)]+\) during ", ended), ended
PY
wait "$job"
status=$?
job=
output=$(cat "$dir/w.out")
[ "$status" -eq 138 ] || fail "mpirun's exit status $status, expected 138"
[ $((SECONDS - sent)) -le 10 ] || fail "took $((SECONDS - sent)) s to leave"
after=$(json_cases "$json")
[ "$after" -gt "$before" ] || fail "the case in flight was not kept ($before cases before, $after after)"
[ "$after" -le $((before + 2)) ] || fail "the run went on: $before cases before, $after after"
# The warning may land while a case samples or while rank 0 gathers a case's results.
check_partial_json "$json" "$ranks" "$after" \
  '^warned \(SIGUSR1 from [^,]+, pid [0-9]+\) during (gathering the results of )?allreduce .*: the run ends once this case is kept$'
for p in "${pids[@]}"; do
  outlived "$p" && fail "rank process $p outlived the job"
done
echo "ok: left $((SECONDS - sent)) s after the warning, $before cases then, $after kept, status 138"
