#!/usr/bin/env bash
# The CPU preset runs end to end on N ranks: console report, JSON with every rank's samples,
# and every allreduce result checked correct.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3 config=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# shellcheck disable=SC2086
output=$(timeout 150 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" \
  matmul membw allreduce reduce_scatter allgather broadcast --backend nccl,mpi --verbose \
  --collective-dtypes fp32,bf16 --placement out,in --config "$config" --samples 3 --warmup 1 --json "$dir/results.json" 2>&1) \
  || fail "splitstep exited non-zero"
grep -q "^  rank $((ranks - 1)): " <<<"$output" || fail "rank $((ranks - 1)) not listed"
grep -q '^matmul \[host (steady clock)\]$' <<<"$output" || fail "no matmul table"
grep -q '^allreduce \[host (steady clock)\]$' <<<"$output" || fail "no allreduce table"
grep -q '^membw \[host (steady clock)\]$' <<<"$output" || fail "no membw table"
for suite in reduce_scatter allgather broadcast; do
  grep -q "^$suite \[host (steady clock)\]$" <<<"$output" || fail "no $suite table"
done
grep -q '^  note: nccl needs a GPU on every rank; the collectives run on mpi only$' <<<"$output" \
  || fail "no note that only mpi runs without GPUs"
grep -Eq '^  copy 16 MiB +[0-9.]+ (ms|us) ± .* per loop \(mean ± std\. dev\. of 3 runs, [0-9]+ loops? each\)$' <<<"$output" \
  || fail "no timeit line for the copy"
grep -Eq '^  mpi fp32 1 MiB .* ok .* r0 ' <<<"$output" || fail "1 MiB allreduce not checked ok"
[ -f "$dir/results.json" ] || fail "no JSON written"
ls "$dir" | grep -q tmp && fail "temporary file left behind"

python3 - "$dir/results.json" "$ranks" <<'PY' || fail "JSON content"
import json, sys
doc = json.load(open(sys.argv[1]))
ranks = int(sys.argv[2])
assert doc["schema"] == "splitstep.results/2", doc["schema"]
meta = doc["metadata"]
catalogue = meta["catalogue"]
assert [s["name"] for s in catalogue["suites"]] == ["matmul", "membw", "allreduce", "reduce_scatter", "allgather", "broadcast"], catalogue["suites"]
assert len(catalogue["collectives"]) == 10, catalogue["collectives"]
declared = {f: {x["name"]: x["type"] for x in v["fields"]} for f, v in catalogue["families"].items()}
json_type = {"string": str, "integer": int, "number": float, "integer list": list}
assert meta["world_size"] == ranks and meta["backend"] == "mpi", meta
for key in ("splitstep_version", "git_revision", "libtorch_version", "nccl_version", "mpi_library", "command_line"):
    assert meta[key], key
assert len(doc["ranks"]) == ranks
cases = [c for c in doc["cases"] if not c["skipped"]]
assert {c["suite"] for c in cases} == {"matmul", "membw", "allreduce", "reduce_scatter", "allgather", "broadcast"}, {c["suite"] for c in cases}
for c in doc["cases"]:
    family = declared[c["family"]]
    for name, value in c["fields"].items():
        assert isinstance(value, json_type[family[name]]), (c["case"], name, value)
for c in cases:
    assert len(c["ranks"]) == ranks, c["case"]
    assert all(len(r["values"]) == 3 and min(r["values"]) > 0 for r in c["ranks"]), c["case"]
    assert all(len(r["host_values"]) == 3 and r["cold"] > 0 and r["loops"] >= 1 for r in c["ranks"]), c["case"]
    assert len({r["loops"] for r in c["ranks"]}) == 1, "ranks disagree on loops: " + c["case"]
    assert c["across_ranks"]["min"] <= c["across_ranks"]["median"] <= c["across_ranks"]["max"]
    if c["family"] == "collective":
        assert c["fields"]["collective"] == c["suite"] and c["fields"]["bytes"] > 0, c["case"]
        assert c["check"]["wrong"] == 0 and c["check"]["checked"] > 0, c["case"]
        assert c["rates"]["busbw GB/s"] > 0 and "arrival_skew" in c, c["case"]
print("json ok:", len(cases), "cases")
PY
echo "ok: $ranks ranks"
