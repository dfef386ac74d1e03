#!/usr/bin/env bash
# `splitstep step --model-file` on N CPU ranks: models exported with `splitstep-analysis export`
# (the tiny Sequential, and torchvision's ResNet-50 at a CPU's size) trained through every sync
# mode with the check passing, and failing on a faulty sync; bad archives refused at start, exit 2
# on every rank.
#   model_file.sh MPIEXEC RANKS BINARY CONFIG PYTHON
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3 config=$4 python=$5
models=$(realpath "$(dirname "$0")/../../reference/exported")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

export_model() {  # export_model NAME MODULE LOSS
  (cd "$models" && "$python" -m splitstep_analysis export "$2:model" --batch "$2:batch" \
    --loss "$3" -o "$dir/$1.pt2" >/dev/null 2>&1) || fail "export of $2 failed"
}
export_model seq sequential mse
export_model resnet resnet cross-entropy

for model in seq resnet; do
  # shellcheck disable=SC2086
  output=$(timeout 150 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" step \
    --config "$config" --model-file "$dir/$model.pt2" --samples 3 --warmup 1 --verbose \
    --json "$dir/$model.json" 2>&1) || fail "$model: splitstep exited non-zero"
  for mode in sequential overlap; do
    grep -Eq "^  exported fp32 $mode .* ok " <<<"$output" || fail "$model: $mode not checked ok"
  done
  # The archive's FLOP count, FlopCounterMode's at export, is every mode's, and gives TFLOP/s.
  "$python" - "$dir/$model.json" "$dir/$model.pt2" <<'PY' || fail "$model: no TFLOP/s"
import json, sys, zipfile
doc = json.load(open(sys.argv[1]))
with zipfile.ZipFile(sys.argv[2]) as archive:
    name = next(n for n in archive.namelist() if n.endswith("extra/splitstep.json"))
    flop = json.loads(archive.read(name))["flop_per_step"]
assert flop > 0, flop
for c in doc["cases"]:
    if c["suite"] == "step" and c["series"] == "step":
        assert c["fields"]["flop_per_step"] == flop and c["rates"]["TFLOP/s"] > 0, c["case"]
figures = [f for d in doc["derived"] for f in d["figures"] if f["tag"] == "step/tflops/none"]
assert len(figures) == 1 and figures[0]["value"] > 0, figures
PY
  "$python" - "$dir/$model.json" "$ranks" <<'PY' || fail "$model: JSON content"
import json, sys
doc = json.load(open(sys.argv[1]))
ranks = int(sys.argv[2])
steps = [c for c in doc["cases"] if c["suite"] == "step" and c["series"] == "step"]
assert sorted(c["fields"]["mode"] for c in steps) == ["none", "overlap", "sequential", "single"]
for c in steps:
    assert c["fields"]["model"] == "exported", c["fields"]
    assert c["fields"]["parameters"] > 0, c["fields"]
    assert len(c["ranks"]) == (1 if c["fields"]["mode"] == "single" else ranks), c["case"]
    if c["fields"]["mode"] in ("sequential", "overlap"):
        assert c["check"]["wrong"] == 0 and c["check"]["checked"] > 0, c["case"]
PY
  echo "ok: $model through every sync mode, checked"
done

# The check holds the exported model's sync to account: gradients summed, not averaged, are wrong.
# shellcheck disable=SC2086
output=$(timeout 150 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" step \
  --config "$config" --model-file "$dir/seq.pt2" --sync-modes overlap --test-sync-fault sum \
  --samples 3 --warmup 1 --verbose 2>&1)
grep -Eq '^  exported fp32 overlap .* [0-9]+ wrong ' <<<"$output" || fail "summed gradients not caught"
echo "ok: summed gradients caught"

# A graph in which FlopCounterMode counted nothing (no products): a note, and no TFLOP/s.
"$python" - "$dir" <<'PY' || fail "could not write the archive of no FLOPs"
import json, pathlib, sys, zipfile
dir = pathlib.Path(sys.argv[1])
with zipfile.ZipFile(dir / "seq.pt2") as old, zipfile.ZipFile(dir / "zero.pt2", "w") as new:
    for info in old.infolist():
        data = old.read(info.filename)
        if info.filename.endswith("extra/splitstep.json"):
            data = json.dumps(dict(json.loads(data), flop_per_step=0))
        new.writestr(info, data)
PY
# shellcheck disable=SC2086
output=$(timeout 150 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" step \
  --config "$config" --model-file "$dir/zero.pt2" --sync-modes none --samples 3 --warmup 1 \
  --verbose --json "$dir/zero.json" 2>&1) || fail "zero: splitstep exited non-zero"
grep -q "exported: no FLOPs counted in its step: no TFLOP/s" <<<"$output" || fail "zero: no note"
"$python" - "$dir/zero.json" <<'PY' || fail "zero: a TFLOP/s of no FLOPs"
import json, sys
doc = json.load(open(sys.argv[1]))
steps = [c for c in doc["cases"] if c["suite"] == "step" and c["series"] == "step"]
assert steps and all("TFLOP/s" not in c["rates"] for c in steps), steps
assert not [f for d in doc["derived"] for f in d["figures"] if f["tag"] == "step/tflops/none"]
PY
echo "ok: a step of no FLOPs counted says so"

# Bad archives: each refused before any case, with one line.
"$python" - "$dir" <<'PY' || fail "could not write the bad archives"
import json, pathlib, sys, zipfile
dir = pathlib.Path(sys.argv[1])
good = (dir / "seq.pt2").read_bytes()
(dir / "truncated.pt2").write_bytes(good[: len(good) // 2])
(dir / "text.pt2").write_text("not an archive\n")
def rewrite(target, edit):
    with zipfile.ZipFile(dir / "seq.pt2") as old, zipfile.ZipFile(dir / target, "w") as new:
        for info in old.infolist():
            new.writestr(info, edit(info.filename, old.read(info.filename)))
def version(name, data):
    if not name.endswith("extra/splitstep.json"):
        return data
    meta = json.loads(data)
    meta["format_version"] = 99
    return json.dumps(meta)
def ops(name, data):
    if not name.endswith("models/model.json"):
        return data
    program = json.loads(data)
    program["graph_module"]["graph"]["nodes"][0]["target"] = "torch.ops.aten.no_such_op.default"
    return json.dumps(program)
rewrite("version.pt2", version)
rewrite("ops.pt2", ops)
PY
refused "--model-file: $dir/missing.pt2: " step --model-file "$dir/missing.pt2"
refused "--model-file: $dir/truncated.pt2: " step --model-file "$dir/truncated.pt2"
refused "--model-file: $dir/text.pt2: " step --model-file "$dir/text.pt2"
refused "--model-file: $dir/version.pt2: .*version" step --model-file "$dir/version.pt2"
refused "--model-file: $dir/ops.pt2: the graph has what splitstep cannot run: .*no_such_op" \
  step --model-file "$dir/ops.pt2"
refused "--model-file: trains the exported model in place of --step-models" \
  step --model-file "$dir/seq.pt2" --step-models mlp
