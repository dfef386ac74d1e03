#!/usr/bin/env bash
# The exit status a health check reads: a run whose check finds wrong elements exits 1 on every
# rank, with one line per case naming it and the rank, and its results file still written whole;
# the same run without the fault exits 0; --fail-below-expected does not fail a node the verdict
# cannot judge (CPU ranks have no reference figures).
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
last=$((ranks - 1))
run=(allreduce broadcast --device cpu --bytes 4K --samples 3 --warmup 1)

# statuses: every rank's exit status must be $1.
statuses() {
  [ "$(grep -c "status=$1\$" <<<"$output")" -eq "$ranks" ] \
    || fail "$2: not every rank exited $1: $(grep 'status=' <<<"$output" | tr '\n' ' ')"
}

output=$(mpirun_each_rank "$mpiexec" "$ranks" "$binary" "${run[@]}" --json "$dir/right.json" 2>&1)
statuses 0 "no fault"
grep -q "wrong results" <<<"$output" && fail "no fault: a wrong result reported"
echo "ok: nothing wrong, every rank exits 0"

# The last rank spoils one element of each case's result before its check.
output=$(mpirun_each_rank "$mpiexec" "$ranks" "$binary" "${run[@]}" --test-spoil-rank "$last" \
  --json "$dir/wrong.json" 2>&1)
statuses 1 "--test-spoil-rank $last"
lines=$(grep '^splitstep: wrong results: ' <<<"$output")
# Every case of both collectives (out of place: the default), and no other rank named.
cases=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for c in d["cases"] if c["check"]["wrong"]))' "$dir/wrong.json") \
  || fail "the results file of the failed run is not whole"
[ "$cases" -ge 2 ] || fail "$cases cases with wrong elements in the JSON, expected every case"
[ "$(grep -c . <<<"$lines")" -eq "$cases" ] || fail "not one line per case with wrong elements"
grep -q "^splitstep: wrong results: allreduce mpi fp32 4 KiB: rank $last (host $(hostname)) 1 of [0-9]* elements wrong$" <<<"$lines" \
  || fail "no line names the allreduce case, rank $last and its host"
grep -q "^splitstep: wrong results: broadcast mpi fp32 4 KiB: rank $last " <<<"$lines" || fail "no broadcast line"
grep -v "rank $last (host" <<<"$lines" && fail "a rank other than $last is named"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert all(c["check"]["wrong"] == 1 for c in d["cases"] if c["check"]["checked"]), d' "$dir/wrong.json" \
  || fail "a case with other than one wrong element"
echo "ok: one spoilt element per case, every rank exits 1, $cases lines name the case and rank $last"

output=$(mpirun_each_rank "$mpiexec" "$ranks" "$binary" "${run[@]}" --fail-below-expected 2>&1)
statuses 0 "--fail-below-expected on CPU ranks"
echo "ok: --fail-below-expected leaves a node the verdict cannot judge at 0"
