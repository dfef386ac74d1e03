#!/usr/bin/env bash
# What a user sees: the default CPU run (launch/run's suites and preset) fits a terminal, at most
# 60 lines on one rank and 80 on more (where each collective's table and the step's waiting
# mean something), of at most 120 columns, with each step case's phase shares under it; and
# --format nccl-tests prints what the analysis package's nccl-tests parser reads as nccl-tests'
# own output, with the figures of the run's JSON.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3 config=$4 analysis=$5
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# shellcheck disable=SC2086
output=$(timeout 150 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" \
  --config "$config" matmul membw allreduce step 2>/dev/null) || fail "default run exited non-zero"
printf '%s\n' "$output" >"$dir/default.txt"
python3 - "$dir/default.txt" "$ranks" <<'PY' || fail "the default run does not fit a terminal"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
widest = max(lines, key=len)
most = 60 if sys.argv[2] == "1" else 80
assert len(lines) <= most, f"{len(lines)} lines, more than {most}"
assert len(widest) <= 120, f"{len(widest)} columns: {widest}"
print(f"ok: {len(lines)} lines, the widest {len(widest)} columns")
PY
grep -Eq '^  case +size \(B\) +count +type +time \(us\) +algbw GB/s +busbw GB/s +#wrong +±ci +slowest +noise$' \
  <<<"$output" || fail "no allreduce table in nccl-tests' columns"
grep -q '^step mlp fp32: where the step time goes$' <<<"$output" || fail "no step breakdown"
grep -Eq '^    data [0-9.]+%  forward [0-9.]+%  loss [0-9.]+%  backward [0-9.]+%  sync [0-9.]+%' \
  <<<"$output" || fail "no phase shares under a synced step"
grep -q ', gather [0-9]' <<<"$output" || fail "no wall time of gathering the results"

# shellcheck disable=SC2086
output=$(timeout 150 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" \
  --config "$config" allreduce allgather --placement out,in --format nccl-tests \
  --json "$dir/results.json" 2>/dev/null) || fail "nccl-tests format run exited non-zero"
printf '%s\n' "$output" >"$dir/console.txt"
PYTHONPATH=$analysis python3 - "$dir/console.txt" "$dir/results.json" <<'PY' || fail "parsed rows differ from the JSON"
import json, math, re, sys
from splitstep_analysis.nccl_tests import parse_nccl_tests

text = open(sys.argv[1]).read()
doc = json.load(open(sys.argv[2]))
# One table per collective, each headed by a comment naming it.
tables = re.split(r"^# (?=\w+ on \w+: )", text, flags=re.M)[1:]
assert len(tables) == 2, len(tables)
checked = 0
for table in tables:
    collective = table.split()[0]
    rows = parse_nccl_tests(table, collective)
    cases = {(c["fields"]["bytes"], c["fields"]["dtype"], c["fields"]["placement"]): c
             for c in doc["cases"]
             if c["family"] == "collective" and c["fields"]["collective"] == collective
             and not c["skipped"]}
    assert len(rows) == len(cases), (collective, len(rows), len(cases))
    for row in rows:
        case = cases[(row["bytes"], row["dtype"], row["placement"])]
        time_us = case["across_ranks"]["median"] * 1e6
        busbw = case["rates"]["busbw GB/s"]
        # Printed with at least two decimals or four significant digits.
        assert math.isclose(row["nccl_tests_us"], time_us, rel_tol=5e-4, abs_tol=0.006), (row, time_us)
        assert math.isclose(row["nccl_tests_busbw"], busbw, rel_tol=5e-3, abs_tol=0.006), (row, busbw)
        assert row["nccl_tests_wrong"] == case["check"]["wrong"], row
        checked += 1
skipped = [c["case"] for c in doc["cases"] if c["family"] == "collective" and c["skipped"]]
for name in skipped:  # nccl-tests has no row for them: a comment says why
    assert re.search(rf"^# skipped {re.escape(name)}: .+$", text, flags=re.M), name
print(f"ok: {checked} nccl-tests rows match the JSON; {len(skipped)} skipped case(s) named")
PY
if grep -v '^#' <<<"$output" | grep -v '^results written to ' | grep -Evq '^ +[0-9]+ +[0-9]+ '; then
  fail "a line that is neither an nccl-tests row nor a comment"
fi
echo "ok"
