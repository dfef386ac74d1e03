#!/usr/bin/env bash
# The step suite end to end on N CPU ranks: phase tables, the derived figures and a diagnosis
# (50 ms of host work per batch makes the small models input bound by a margin wider than the
# noise of 3 samples on shared cores), every sync checked correct.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3 config=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# shellcheck disable=SC2086
output=$(timeout 150 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" step \
  --config "$config" --step-models mlp,vit-b16 --host-work-ms 50 --samples 3 --warmup 1 --verbose \
  --json "$dir/results.json" 2>&1) || fail "splitstep exited non-zero"
grep -q '^step \[host (steady clock)\]$' <<<"$output" || fail "no step table"
grep -Eq '^  mlp fp32 overlap .* ok ' <<<"$output" || fail "overlap step not checked ok"
grep -Eq '^    backward +[0-9.]+ (ms|us) ' <<<"$output" || fail "no backward phase row"
for model in mlp vit-b16; do
  grep -q "^step $model fp32: where the step time goes$" <<<"$output" || fail "no $model summary"
done
grep -q '^  weak-scaling efficiency, T_1 / T_ddp (overlap) ' <<<"$output" || fail "no efficiency"
grep -q '^  diagnosis:$' <<<"$output" || fail "no diagnosis"
# With more ranks than cores, the ranks' busy host work competes for the CPUs and skews
# everything else; the input-bound finding is asserted where each rank has a core.
cores=$(nproc)
if [ "$ranks" -le "$cores" ]; then
  grep -q '^    input bound: loading/copying the batch takes ' <<<"$output" \
    || fail "no input-bound finding"
fi

python3 - "$dir/results.json" "$ranks" "$cores" <<'PY' || fail "JSON content"
import json, sys
doc = json.load(open(sys.argv[1]))
ranks = int(sys.argv[2])
cores = int(sys.argv[3])
steps = [c for c in doc["cases"] if c["suite"] == "step" and c["series"] == "step"]
assert len(steps) == 8, [c["case"] for c in steps]  # two models x four modes
for c in steps:
    mode = c["fields"]["mode"]
    assert len(c["ranks"]) == (1 if mode == "single" else ranks), c["case"]
    if mode in ("sequential", "overlap"):
        assert c["check"]["wrong"] == 0 and c["check"]["checked"] > 0, c["case"]
# Detail series (the packing, each bucket's timeline) are checked apart from the phases.
phases = {c["series"] for c in doc["cases"] if c["case"] == "mlp fp32 overlap" and not c["detail"]}
details = {c["series"] for c in doc["cases"] if c["case"] == "mlp fp32 overlap" and c["detail"]}
assert "packing" in details and "bucket 0 finish after backward" in details, details
assert phases == {"step", "data", "forward", "loss", "backward", "sync", "optimizer", "comm"}, phases
tags = {f["tag"] for d in doc["derived"] for f in d["figures"]}
for tag in ("step/time/none", "step/exposed/overlap", "step/overlap/overlap", "step/wait/overlap",
            "step/efficiency/overlap", "step/breakdown/overlap/residual", "step/ledger/overlap/last"):
    assert tag in tags, tag
for d in [d for d in doc["derived"] if d["suite"] == "step"] if ranks <= cores else []:
    assert any(f.startswith("input bound") for f in d["findings"]), (d["subject"], d["findings"])
print("json ok:", len(steps), "steps")
PY
echo "ok: $ranks ranks"
