#!/usr/bin/env bash
# Submits one of the slurm/ batch scripts, as a user would, to the test cluster of
# launch/slurm-up (CPU ranks, configs/cpu-quick.ini) and checks what the job wrote: its JSON
# (parses, world_size, the script's cases or derived figures), report.txt, every rank's output
# file, and for two nodes that the ranks ran on both.
#
#   tests/slurm/submit.sh [--nodes 2] [--launcher mpirun] [--model-file PT2] SCRIPT BINARY CONFIG
#   tests/slurm/submit.sh --down
#
#   --nodes 2          two simulated nodes (slurm-up --nodes 2), one task on each;
#                      otherwise one node and 2 tasks
#   --launcher mpirun  the script's mpirun launcher instead of srun --mpi=pmix
#   --model-file PT2   step-scaling of an exported model (SPLITSTEP_ARGS=--model-file PT2)
#   --down             stop the test cluster and remove its state (the tests' cleanup)
#
# The cluster's state lives in $SPLITSTEP_SLURM_STATE (default /tmp/splitstep-slurm-test, port
# $SPLITSTEP_SLURM_PORT, default 6927), apart from one brought up by hand; `--down` (the test
# slurm_cluster_down) stops it. Exit status 77 (CTest's SKIP_RETURN_CODE) when Slurm cannot be
# brought up on this machine, with the reason.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
export SPLITSTEP_SLURM_STATE=${SPLITSTEP_SLURM_STATE:-/tmp/splitstep-slurm-test}
export SPLITSTEP_SLURM_PORT=${SPLITSTEP_SLURM_PORT:-6927}
export SLURM_CONF=$SPLITSTEP_SLURM_STATE/etc/slurm.conf
if [ "${1:-}" = --down ]; then
  exec "$root/launch/slurm-down" --state-dir "$SPLITSTEP_SLURM_STATE" --purge
fi

nodes=1
launcher=srun
model_file=
while [ $# -gt 0 ]; do
  case $1 in
    --nodes) nodes=$2; shift 2 ;;
    --launcher) launcher=$2; shift 2 ;;
    --model-file) model_file=$(readlink -f "$2"); shift 2 ;;
    *) break ;;
  esac
done
[ $# -eq 3 ] || { echo "usage: $0 [--nodes 2] [--launcher mpirun] [--model-file PT2] SCRIPT BINARY CONFIG" >&2; exit 2; }
script=$(readlink -f "$1") binary=$(readlink -f "$2") config=$(readlink -f "$3")
name=$(basename "$script" .sbatch)
tasks=2

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

up_status=0
up=$("$root/launch/slurm-up" --nodes "$nodes" 2>&1) || up_status=$?
printf '%s\n' "$up"
if [ "$up_status" -eq 77 ]; then
  echo "SKIP: Slurm cannot be brought up here: ${up##*cannot bring up Slurm here: }"
  exit 77
fi
[ "$up_status" -eq 0 ] || fail "launch/slurm-up exited with status $up_status"

work=$(mktemp -d /tmp/splitstep-slurm-test-job.XXXXXX)
chmod 755 "$work"
job=""
cleanup() {
  local status=$?
  if [ -n "$job" ] && [ -n "$(squeue -h -j "$job" -o %i 2>/dev/null || true)" ]; then
    scancel "$job" 2>/dev/null || true
  fi
  if [ "$status" -eq 0 ]; then rm -rf "$work"; else echo "the job's files are kept in $work" >&2; fi
}
trap cleanup EXIT

# The scripts' early warning, two minutes before a limit of three, would cut the longer jobs
# short: ten seconds (tests/slurm/time_limit.sh tests the warning itself).
# What each script is given (sizes small enough for two CPU ranks) and what its JSON must hold.
env_args=(SPLITSTEP="$binary" SPLITSTEP_OUT="$work" SPLITSTEP_LAUNCHER="$launcher")
case $name in
  step-scaling)
    env_args+=(SPLITSTEP_CONFIG="$config")
    [ -z "$model_file" ] || env_args+=(SPLITSTEP_ARGS="--model-file $model_file")
    ;;
  collectives)
    if [ "$nodes" -eq 1 ]; then
      # The sweep from the environment; the preset's own `bytes` list would conflict with it.
      grep -Ev '^[[:space:]]*bytes[[:space:]]*=' "$config" >"$work/sweep.ini"
      env_args+=(SPLITSTEP_CONFIG="$work/sweep.ini" SPLITSTEP_MIN_BYTES=1K SPLITSTEP_MAX_BYTES=64K
                 SPLITSTEP_STEP_FACTOR=8)
    else
      env_args+=(SPLITSTEP_CONFIG="$config" SPLITSTEP_ARGS="--bytes 1K,64K")
    fi
    ;;
  link-health) env_args+=(SPLITSTEP_CONFIG="$config" SPLITSTEP_BYTES=64K) ;;
  *) fail "no checks for $name" ;;
esac
if [ "$nodes" -eq 1 ]; then
  sbatch_args=(--ntasks "$tasks")
else
  sbatch_args=(--nodes 2 --ntasks-per-node 1)
fi

cd "$root"
echo "submitting: sbatch --wait ${sbatch_args[*]} slurm/$name.sbatch (${env_args[*]})"
sbatch_status=0
env "${env_args[@]}" timeout 200 sbatch --wait --parsable --time 3 --signal=B:USR1@10 "${sbatch_args[@]}" \
  --output "$work/slurm-%j.out" "$script" >"$work/sbatch.txt" 2>&1 || sbatch_status=$?
job=$(grep -Eom1 '^[0-9]+' "$work/sbatch.txt" || true)
dir=$work/$job-$name

show() {
  local f
  for f in "$work/sbatch.txt" "$work/slurm-$job.out" "$dir/job.txt" "$dir/nodes.txt" "$dir"/rank-*.out; do
    [ -f "$f" ] && { echo "--- $f"; tail -n 40 "$f"; }
  done
  for f in "$SPLITSTEP_SLURM_STATE"/log/slurmd-*.log; do
    [ -f "$f" ] && { echo "--- $f"; tail -n 10 "$f"; }
  done
} >&2
[ -n "$job" ] || { show; fail "sbatch did not submit the job"; }
[ "$sbatch_status" -eq 0 ] || { show; fail "job $job ended with status $sbatch_status"; }
[ -d "$dir" ] || { show; fail "no results directory $dir"; }
for f in results.json report.txt job.txt nodes.txt; do
  [ -s "$dir/$f" ] || { show; fail "$dir/$f is missing or empty"; }
done
for ((rank = 0; rank < tasks; rank++)); do
  [ -f "$dir/rank-$rank.out" ] || { show; fail "no output file of rank $rank"; }
done
grep -q "^launcher: $launcher" "$dir/job.txt" || { show; fail "the job did not use $launcher"; }

python3 - "$dir" "$name" "$tasks" "$nodes" "$model_file" <<'PY' || { show; fail "the job's results"; }
import json, os, sys

dir, name, tasks, nodes, model_file = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
doc = json.load(open(os.path.join(dir, "results.json")))
assert doc["metadata"]["world_size"] == tasks, doc["metadata"]["world_size"]
cases = [c for c in doc["cases"] if not c.get("skipped")]
if name == "step-scaling":
    figures = {f["tag"]: f for d in doc["derived"] for f in d["figures"]}
    for tag in ("step/time/single", "step/time/overlap", "step/efficiency/overlap"):
        assert tag in figures, f"no derived figure {tag}"
        assert isinstance(figures[tag]["value"], (int, float)) and figures[tag]["value"] > 0, figures[tag]
    table = open(os.path.join(dir, "scaling.txt")).read()
    assert "T_1" in table and "%" in table, table
    if model_file:
        models = {c["fields"]["model"] for c in cases if c["suite"] == "step"}
        assert models == {"exported"}, models
        assert "exported" in table, table
elif name == "collectives":
    for suite in ("allreduce", "reduce_scatter", "allgather", "broadcast"):
        sizes = {c["fields"]["bytes"] for c in cases if c["suite"] == suite}
        want = {1024, 8192, 65536} if nodes == 1 else {1024, 65536}
        assert sizes == want, f"{suite}: sizes {sorted(sizes)}, expected {sorted(want)}"
    assert os.path.getsize(os.path.join(dir, "peaks.txt")) > 0
elif name == "link-health":
    groups = {",".join(map(str, c["fields"]["group"])) for c in cases if "group" in c["fields"]}
    assert groups, "no case carries fields.group"
    assert "0,1" in groups, groups
    assert os.path.getsize(os.path.join(dir, "groups.txt")) > 0

if nodes > 1:
    hosts = {r["host"] for r in doc["ranks"]}
    placed = [line.split() for line in open(os.path.join(dir, "nodes.txt"))]
    slurm_nodes = {p[3] for p in placed}
    assert len(placed) == tasks, placed
    if len(hosts) == nodes:
        print(f"ranks ran on {len(hosts)} hosts: {sorted(hosts)}")
        # The report groups each case's ranks by node.
        assert sorted(r["node_index"] for r in doc["ranks"]) == list(range(nodes)), doc["ranks"]
        assert all(len(c["by_node"]) == nodes for c in cases if c["ranks"]), "a case without by_node"
        report = open(os.path.join(dir, "report.txt")).read()
        # The compact report names each case's slowest rank with its node (--verbose adds the
        # per-node rows).
        slowest = {f"r{r['rank']} {r['host']}" for r in doc["ranks"]}
        assert any(s in report for s in slowest), report
    else:
        # Simulated nodes share this machine's hostname: Slurm's placement shows the two nodes.
        assert len(slurm_nodes) == nodes, f"tasks ran on Slurm nodes {sorted(slurm_nodes)}"
        print(f"ranks report host(s) {sorted(hosts)}; Slurm placed the tasks on nodes {sorted(slurm_nodes)}")
print(f"json ok: {name}, world_size {tasks}, {len(cases)} cases")
PY
echo "ok: job $job ($name, $nodes node(s), $launcher)"
