#!/usr/bin/env bash
# A model exported with a release of its library other than the pinned one, as users have them:
# LIBDIR holds that release (launch/setup installs it under .venv/compat), first on PYTHONPATH.
# The model is held to eager PyTorch under that release (check.sh), then trained by splitstep on
# 2 CPU ranks through none and overlap, the sync check passing.
# With a last argument `refused`: the export is refused instead, one line and exit status 2
# (a graph that release's model gives torch.export but torch.export.save cannot write). With
# `bf16`: the model is held to eager under bf16 autocast only, its operations as eager's (a
# release that keeps a region in fp32, as 5.17's rotary embedding does, must keep it exported).
#   compat.sh PYTHON EXPORTED_CHECK SPLITSTEP MPIEXEC LIBDIR MODULE:MODEL MODULE:BATCH LOSS [refused|bf16]
set -euo pipefail
python=$1 check=$2 splitstep=$3 mpiexec=$4 libdir=$5 model=$6 batch=$7 loss=$8
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH=$libdir${PYTHONPATH:+:$PYTHONPATH}
echo "under $("$python" -c 'import transformers; print("transformers", transformers.__version__)')"
if [ "${9:-}" = refused ]; then
  status=0
  (cd "$here" && "$python" -m splitstep_analysis export "$model" --batch "$batch" --loss "$loss" \
    -o "$dir/model.pt2") >"$dir/out.txt" 2>"$dir/err.txt" || status=$?
  cat "$dir/err.txt"
  [ "$status" -eq 2 ] || { echo "FAIL: exit $status, not 2"; exit 1; }
  # torch and transformers may warn; the refusal is the command's one line, last.
  grep -q '^splitstep-analysis export: the graph holds torch.vmap' <(tail -n 1 "$dir/err.txt") \
    || { echo "FAIL: no one-line refusal"; exit 1; }
  [ ! -e "$dir/model.pt2" ] || { echo "FAIL: an archive was written"; exit 1; }
  echo "ok: refused in one line, exit 2, nothing written"
  exit 0
fi
if [ "${9:-}" = bf16 ]; then
  bash "$here/check.sh" "$python" "$check" "$model" "$batch" "$loss" bf16
  exit 0
fi
bash "$here/check.sh" "$python" "$check" "$model" "$batch" "$loss"
(cd "$here" && "$python" -m splitstep_analysis export "$model" --batch "$batch" --loss "$loss" \
  -o "$dir/model.pt2")
# shellcheck disable=SC2086
output=$(timeout 150 "$mpiexec" -np 2 ${SPLITSTEP_MPIEXEC_FLAGS:-} "$splitstep" step --device cpu \
  --model-file "$dir/model.pt2" --sync-modes none,overlap --precision fp32 --samples 2 \
  --warmup 0 --verbose 2>&1) || { echo "$output"; echo "FAIL: splitstep exited non-zero"; exit 1; }
grep -Eq '^  exported fp32 overlap .* ok ' <<<"$output" \
  || { echo "$output"; echo "FAIL: overlap not checked ok"; exit 1; }
echo "ok: trained through none and overlap on 2 ranks, checked"
