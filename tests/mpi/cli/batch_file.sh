#!/usr/bin/env bash
# `splitstep step --model-file --batch-file` on N CPU ranks: the exported model trains on the
# file's batch (torch.save of a tuple of tensors), through every sync mode with the check passing;
# the workload's loss on every rank's batch is eager PyTorch's on the file's tensors; a file that
# does not hold the archive's recorded batch is refused at start, one line, exit 2 on every rank.
#   batch_file.sh MPIEXEC RANKS BINARY CONFIG PYTHON BATCH_LOSS
# BATCH_LOSS: splitstep_exported_batch_loss (tests/reference/ExportedBatchLoss.cpp).
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3 config=$4 python=$5 batch_loss=$6
models=$(realpath "$(dirname "$0")/../../reference/exported")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# A model with integer inputs, whose recorded ranges a batch file is held to.
cat >"$dir/tokens.py" <<'PY'
import torch

def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Embedding(10, 4), torch.nn.Flatten(), torch.nn.Linear(12, 2))

def batch():
    return torch.tensor([[0, 3, 9], [1, 2, 8]]), torch.tensor([0, 1])
PY
(cd "$models" && "$python" -m splitstep_analysis export sequential:model --batch sequential:batch \
  --loss mse -o "$dir/seq.pt2" --save-batch "$dir/example.pt" >/dev/null 2>&1) \
  || fail "export of sequential failed"
(cd "$dir" && "$python" -m splitstep_analysis export tokens:model --batch tokens:batch \
  -o "$dir/tokens.pt2" >/dev/null 2>&1) || fail "export of tokens failed"

# other.pt: a batch of the recorded shapes that is neither the example nor any rank's drawn one;
# eager.txt: eager PyTorch's loss on it and the exporter's on its example. Then the bad files.
(cd "$models" && "$python" - "$dir" <<'PY') || fail "could not write the batch files"
import json, pathlib, sys, zipfile
import torch
import sequential
dir = pathlib.Path(sys.argv[1])
gen = torch.Generator().manual_seed(7)
other = (torch.randn(4, 16, generator=gen), torch.randn(4, 8, generator=gen))
torch.save(other, dir / "other.pt")
loss = torch.nn.functional.mse_loss(sequential.model()(other[0]), other[1]).item()
with zipfile.ZipFile(dir / "seq.pt2") as archive:
    name = next(n for n in archive.namelist() if n.endswith("extra/splitstep.json"))
    example = json.loads(archive.read(name))["eager_loss"]
(dir / "eager.txt").write_text(f"{loss!r} {example!r}\n")
# --save-batch wrote the factory's batch, with torch.save.
saved = torch.load(dir / "example.pt")
assert isinstance(saved, tuple) and all(torch.equal(a, b) for a, b in zip(saved, sequential.batch()))
torch.save(list(other), dir / "list.pt")
torch.save(other[:1], dir / "one.pt")
torch.save(other + (other[1],), dir / "three.pt")
torch.save((other[0], torch.zeros(8, dtype=torch.int64)), dir / "shape.pt")
torch.save((other[0], other[1].double()), dir / "dtype.pt")
torch.save({"input": other[0], "target": other[1]}, dir / "dict.pt")
(dir / "text.pt").write_text("not a torch.save file\n")
(dir / "truncated.pt").write_bytes((dir / "other.pt").read_bytes()[:300])
torch.save((torch.tensor([[0, 3, 10], [1, 2, 8]]), torch.tensor([0, 1])), dir / "range.pt")
# The target's storage record cut to 16 of its 128 bytes: its shape still claims all of them.
with zipfile.ZipFile(dir / "other.pt") as old, zipfile.ZipFile(dir / "short.pt", "w") as new:
    for info in old.infolist():
        data = old.read(info.filename)
        new.writestr(info, data[:16] if info.filename.endswith("/data/1") else data)
# The target's shape in the pickle widened from (4, 8) to (4, 9), strides kept: its view reaches
# 33 elements of a 32-element storage.
with zipfile.ZipFile(dir / "other.pt") as old, zipfile.ZipFile(dir / "wide.pt", "w") as new:
    for info in old.infolist():
        data = old.read(info.filename)
        if info.filename.endswith("data.pkl"):
            assert data.count(b"K\x04K\x08\x86") == 1
            data = data.replace(b"K\x04K\x08\x86", b"K\x04K\x09\x86")
        new.writestr(info, data)
PY
read -r eager example <"$dir/eager.txt"

# losses FILE...: every rank's loss on its batch, one line each, from the workload.
losses() { "$batch_loss" "$dir/seq.pt2" "$ranks" "$@" || fail "$batch_loss $* failed"; }
near() {  # near A B: within the interpreter's fp32 agreement with eager (ExportedCheck.cpp)
  "$python" -c 'import math, sys; sys.exit(not math.isclose(float(sys.argv[1]), float(sys.argv[2]), rel_tol=1e-5))' "$1" "$2"
}
for file in other list; do
  output=$(losses "$dir/$file.pt")
  [ "$(grep -c '^rank [0-9]* loss ' <<<"$output")" -eq "$ranks" ] || fail "$file.pt: not a loss per rank"
  while read -r _ rank _ loss; do
    near "$loss" "$eager" || fail "$file.pt: rank $rank's loss $loss is not eager's $eager"
  done <<<"$output"
done
echo "ok: every rank's loss on the file's batch is eager's, $eager"
output=$(losses "$dir/example.pt")
while read -r _ rank _ loss; do
  near "$loss" "$example" || fail "example.pt: rank $rank's loss $loss is not the exporter's $example"
done <<<"$output"
echo "ok: --save-batch's file gives the exporter's eager loss, $example"
# Without the file each rank draws its own batch: the losses above tell the two apart.
output=$(losses)
first=$(awk 'NR == 1 {print $4}' <<<"$output") second=$(awk 'NR == 2 {print $4}' <<<"$output")
near "$first" "$eager" && fail "a drawn batch gives the file's loss"
near "$first" "$second" && fail "ranks 0 and 1 drew batches of the same loss"
echo "ok: drawn batches differ from the file's and between ranks ($first, $second)"

# shellcheck disable=SC2086
output=$(timeout 150 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" step \
  --config "$config" --model-file "$dir/seq.pt2" --batch-file "$dir/other.pt" --samples 3 \
  --warmup 1 --verbose --json "$dir/run.json" 2>&1) || fail "splitstep exited non-zero"
for mode in sequential overlap; do
  grep -Eq "^  exported fp32 $mode .* ok " <<<"$output" || fail "$mode not checked ok"
done
"$python" - "$dir/run.json" "$dir/other.pt" <<'PY' || fail "JSON content"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["plan"]["batch-file"] == sys.argv[2], doc["plan"]["batch-file"]
steps = [c for c in doc["cases"] if c["suite"] == "step" and c["series"] == "step"]
assert sorted(c["fields"]["mode"] for c in steps) == ["none", "overlap", "sequential", "single"]
for c in steps:
    if c["fields"]["mode"] in ("sequential", "overlap"):
        assert c["check"]["wrong"] == 0 and c["check"]["checked"] > 0, c["case"]
PY
echo "ok: the file's batch through every sync mode, checked"

# One path, two contents: rank 0 reads its batch.pt in one directory, the others theirs in
# another, whose input is scaled. The plans agree (the path is the same), the batches do not:
# the check, whose reference on rank 0 reads rank 0's file for every rank, reports it.
mkdir "$dir/first" "$dir/rest"
cp "$dir/other.pt" "$dir/first/batch.pt"
cp "$dir/example.pt" "$dir/rest/batch.pt"
args=(step --config "$config" --model-file "$dir/seq.pt2" --batch-file batch.pt
  --sync-modes "sequential,overlap" --samples 3 --warmup 1 --verbose)
# shellcheck disable=SC2086
output=$(timeout 150 "$mpiexec" ${SPLITSTEP_MPIEXEC_FLAGS:-} -np 1 -wdir "$dir/first" "$binary" \
  "${args[@]}" : -np $((ranks - 1)) -wdir "$dir/rest" "$binary" "${args[@]}" 2>&1)
status=$?
# Wrong elements fail the run (exit 1), with a line per case.
[ "$status" -eq 1 ] || fail "splitstep with a differing file exited $status, not 1"
grep -q "^splitstep: wrong results: step exported fp32 overlap: rank " <<<"$output" \
  || fail "no line names the overlap case's wrong results"
for mode in sequential overlap; do
  grep -Eq "^  exported fp32 $mode .* [0-9]+ wrong " <<<"$output" || fail "$mode: differing files not caught"
done
echo "ok: a rank whose file differs is caught by the check"

# Bad batch files: each refused before any case, with one line naming the file.
bad() { refused "--batch-file: $dir/$1: $2" step --model-file "$dir/${3:-seq}.pt2" --batch-file "$dir/$1"; }
bad missing.pt "no such file"
bad text.pt "not a file of torch.save (PytorchStreamReader failed"
bad short.pt "tensor 1 (batch_1)'s storage claims 128 B, its record holds 16 B"
bad wide.pt "tensor 1 (batch_1) of shape \[4, 9\] needs 132 B of storage, which holds 128 B"
# Every kind of path that is not a readable file (tests/unit/InputFileTest.cpp): a directory here.
mkdir "$dir/folder.pt" && bad folder.pt "is a directory, not a file"
refused "--csv: '$dir/other.pt' is the --batch-file file, which the run reads (it would be replaced)" \
  step --model-file "$dir/seq.pt2" --batch-file "$dir/other.pt" --csv "$dir/other.pt" --overwrite
refused "--batch-file: the path is empty (leave the option out to draw the batch from the recorded shapes)" \
  step --model-file "$dir/seq.pt2" --batch-file ""
bad truncated.pt "not a file of torch.save (PytorchStreamReader failed"
bad dict.pt "holds a GenericDict, not a tuple or list of tensors"
bad one.pt "holds a tuple or list of 1, the archive records a batch of 2 tensors"
bad three.pt "holds a tuple or list of 3, the archive records a batch of 2 tensors"
bad shape.pt "tensor 1 (batch_1) has shape \[8\] and dtype int64, the archive records \[4, 8\] float32"
bad dtype.pt "tensor 1 (batch_1) has shape \[4, 8\] and dtype float64, the archive records \[4, 8\] float32"
bad range.pt "tensor 0 (batch_0) has values in \[0, 10\], outside the archive's recorded range \[0, 9\]" tokens
refused "--batch-file: the batch of an exported model, goes with --model-file" \
  step --batch-file "$dir/other.pt"
