#!/usr/bin/env bash
# `splitstep step --model-file` on N CPU ranks: models exported with `splitstep-analysis export`
# (the tiny Sequential, and tiny configs of torchvision's ResNet-50, timm's ViT-B/16 and Hugging
# Face's Llama) trained through every sync mode with the check passing, and failing on a faulty
# sync; bad archives, and a model too large for the node, refused at start, exit 2 on every rank.
#   model_file.sh MPIEXEC RANKS BINARY CONFIG PYTHON ARCHIVES
# ARCHIVES: the folder tests/reference/exported/export_models.sh exported them into (the CTest
# fixture exported_models), read only: what this test changes it changes in copies.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3 config=$4 python=$5 archives=$6
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for model in seq resnet vit llama llama_hf; do
  cp "$archives/$model.pt2" "$dir/" || fail "no $model.pt2 in $archives (export_models.sh)"
done

for model in seq resnet vit llama; do
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

# The outputs of a built-in model's run, for an exported one: the CSV, the trace, a LibTorch
# profile per mode and rank (into a directory every rank makes at once), the breakdown, the
# bucket ledger and, with an allreduce sweep in the same run, the step's projection.
# shellcheck disable=SC2086
timeout 150 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" step allreduce \
  --config "$config" --model-file "$dir/seq.pt2" --sync-modes none,sequential,overlap \
  --samples 3 --warmup 1 --csv "$dir/outputs.csv" --trace "$dir/outputs.trace.json" \
  --torch-profile "$dir/profile/new" --json "$dir/outputs.json" >"$dir/outputs.out" 2>&1 \
  || fail "outputs: splitstep exited non-zero: $(grep splitstep: "$dir/outputs.out" | head -3)"
"$python" - "$dir" "$ranks" <<'PY' || fail "outputs of the exported model"
import csv, json, os, sys
dir, ranks = sys.argv[1], int(sys.argv[2])
rows = [r for r in csv.DictReader(open(os.path.join(dir, "outputs.csv"))) if r["suite"] == "step"]
assert {r["model"] for r in rows} == {"exported"}, {r["model"] for r in rows}
assert {int(r["rank"]) for r in rows} == set(range(ranks)), {r["rank"] for r in rows}
trace = json.load(open(os.path.join(dir, "outputs.trace.json")))
names = {e.get("name") for e in trace["traceEvents"]}
for mode in ("none", "sequential", "overlap"):
    assert f"step exported fp32 {mode}" in names, mode
    for rank in range(ranks):
        profile = os.path.join(dir, "profile", "new", f"splitstep-exported-fp32-{mode}-rank{rank}.json")
        assert os.path.getsize(profile) > 0, profile
figures = {f["tag"] for d in json.load(open(os.path.join(dir, "outputs.json")))["derived"]
           for f in d["figures"]}
for tag in ("step/breakdown/overlap/tail_comm", "step/ledger/overlap/last",
            "step/projection/N=8/T_ddp", "step/projection/check/T_ddp_ratio"):
    assert tag in figures, tag
PY
echo "ok: CSV, trace, LibTorch profiles, breakdown, ledger and projection of the exported model"

# bf16: transformers' causal-LM loss casts the logits to fp32 (logits.float()), which torch.export
# guards with the traced dtype; under autocast the logits are bf16, and the run must go on.
# shellcheck disable=SC2086
output=$(timeout 150 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" step \
  --config "$config" --model-file "$dir/llama_hf.pt2" --precision bf16 --sync-modes overlap \
  --samples 3 --warmup 1 --verbose 2>&1) || fail "llama_hf bf16: $(grep splitstep: <<<"$output" | head -2)"
grep -Eq "^  exported bf16 overlap .* ok " <<<"$output" || fail "llama_hf bf16: overlap not checked ok"
echo "ok: a decoder whose loss casts to fp32, in bf16, checked"

# The check holds the exported model's sync to account: gradients summed, not averaged, are wrong.
# shellcheck disable=SC2086
output=$(timeout 150 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" step \
  --config "$config" --model-file "$dir/seq.pt2" --sync-modes overlap --test-sync-fault sum \
  --samples 3 --warmup 1 --verbose 2>&1)
status=$?
grep -Eq '^  exported fp32 overlap .* [0-9]+ wrong ' <<<"$output" || fail "summed gradients not caught"
[ "$status" -eq 1 ] || fail "summed gradients: exit status $status, not 1"
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
    # With the bytes that would erase the line on a terminal: they are shown, not sent.
    program["graph_module"]["graph"]["nodes"][0]["target"] = "torch.ops.aten.no_such_op\x1b[2K\r.default"
    return json.dumps(program)
def huge(name, data):
    # A value the graph computes, recorded as 2^20 x 2^20: 4 TiB in fp32, on no node.
    if not name.endswith("models/model.json"):
        return data
    program = json.loads(data)
    values = program["graph_module"]["graph"]["tensor_values"]
    computed = [v for v in values if not v.startswith(("p_", "b_", "c_"))][-1]
    values[computed]["sizes"] = [{"as_int": 1 << 20}, {"as_int": 1 << 20}]
    return json.dumps(program)
def torch_release(name, data):
    if not name.endswith("extra/splitstep.json"):
        return data
    meta = json.loads(data)
    meta["torch_version"] = "2.15.0"
    return json.dumps(meta)
rewrite("version.pt2", version)
rewrite("torch.pt2", torch_release)
rewrite("ops.pt2", ops)
rewrite("huge.pt2", huge)
PY
refused "--model-file: $dir/missing.pt2: " step --model-file "$dir/missing.pt2"
refused "--model-file: $dir/truncated.pt2: " step --model-file "$dir/truncated.pt2"
refused "--model-file: $dir/text.pt2: " step --model-file "$dir/text.pt2"
refused "--model-file: $dir/version.pt2: .*version" step --model-file "$dir/version.pt2"
torch_release=$("$python" -c 'import torch; print(torch.__version__.split("+")[0])')
refused "--model-file: $dir/torch.pt2: exported with torch 2.15.0, this splitstep runs LibTorch $torch_release, whose export format and operators may differ: export it again under torch ${torch_release%.*} (pip install torch==$torch_release), or give --archive-torch any to run it anyway$" \
  step --model-file "$dir/torch.pt2"
# shellcheck disable=SC2086
timeout 150 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" step --config "$config" \
  --model-file "$dir/torch.pt2" --archive-torch any --sync-modes none --samples 2 --warmup 0 \
  --check off >"$dir/any.txt" 2>&1 || { cat "$dir/any.txt"; fail "--archive-torch any: exited non-zero"; }
echo "ok: an archive of another torch release runs with --archive-torch any"
refused "--model-file: $dir/ops.pt2: the graph has what splitstep cannot run: .*no_such_op\\\\x1b\\[2K\\\\x0d\\.default" \
  step --model-file "$dir/ops.pt2"
refused "--model-file: exported [a-z0-9]* needs about [0-9.]* TiB per rank .* of activations), more than the .* usable on .*; lower the model or its batch and export it again" \
  step --model-file "$dir/huge.pt2"
refused "--model-file: trains the exported model in place of --step-models" \
  step --model-file "$dir/seq.pt2" --step-models mlp
# An output never replaces an input, --overwrite or not.
refused "--metrics: '$dir/./seq.pt2' is the --model-file file, which the run reads (it would be replaced)" \
  step --model-file "$dir/seq.pt2" --metrics "$dir/./seq.pt2" --overwrite
