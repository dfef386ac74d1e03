#!/usr/bin/env bash
# A results file splitstep writes, through the analysis package: every collective of the run is
# drawn, each under its name as the file's catalogue gives it, and a collective the package has
# never heard of (the same cases renamed) is drawn too, by name.
#   analysis_run.sh MPIEXEC RANKS BINARY CONFIG ANALYSIS_COMMAND...
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3 config=$4
shift 4
analysis=("$@")  # the command: python -m splitstep_analysis
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
collectives="allreduce reduce_scatter allgather broadcast alltoall sendrecv reduce gather scatter
  hypercube"

# shellcheck disable=SC2086
timeout 150 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" $collectives \
  --config "$config" --samples 3 --warmup 1 --json "$dir/run.json" >"$dir/run.log" 2>&1 \
  || { cat "$dir/run.log"; fail "splitstep exited non-zero"; }
"${analysis[@]}" plot "$dir/run.json" -o "$dir/plots" >"$dir/plot.log" 2>&1 \
  || { cat "$dir/plot.log"; fail "plot exited non-zero"; }
for c in $collectives; do
  [ -s "$dir/plots/run-busbw-${c//_/-}.png" ] || { ls "$dir/plots"; fail "no busbw figure of $c"; }
done

# The same file with allreduce renamed: a collective of another build.
python3 - "$dir/run.json" "$dir/renamed.json" <<'PY' || fail "could not rename"
import json, sys
doc = json.load(open(sys.argv[1]))
for case in doc["cases"]:
    if case["suite"] == "allreduce":
        case["suite"] = case["fields"]["collective"] = "allreduce_tree"
catalogue = doc["metadata"]["catalogue"]
catalogue["collectives"] = ["allreduce_tree" if c == "allreduce" else c for c in catalogue["collectives"]]
for suite in catalogue["suites"]:
    if suite["name"] == "allreduce":
        suite["name"] = "allreduce_tree"
json.dump(doc, open(sys.argv[2], "w"))
PY
"${analysis[@]}" plot "$dir/renamed.json" -o "$dir/renamed" >"$dir/renamed.log" 2>&1 \
  || { cat "$dir/renamed.log"; fail "plot of the renamed file exited non-zero"; }
[ -s "$dir/renamed/renamed-busbw-allreduce-tree.png" ] \
  || { ls "$dir/renamed"; fail "the unknown collective was not drawn by its name"; }
echo "ok: $ranks ranks, 9 collectives and an unknown one drawn"
