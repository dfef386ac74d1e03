#!/usr/bin/env bash
# One exported model against eager PyTorch: reference.py exports it with splitstep-analysis
# export and writes eager's loss and gradients, splitstep_exported_check runs the archive's graph.
#   check.sh PYTHON EXPORTED_CHECK MODULE:MODEL MODULE:BATCH LOSS [PRECISION]
set -euo pipefail
absolute() { case $1 in */*) realpath -s "$1" ;; *) printf '%s\n' "$1" ;; esac; }
python=$(absolute "$1") check=$(absolute "$2") model=$3 batch=$4 loss=$5 precision=${6:-fp32}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$(dirname "$0")"
"$python" reference.py "$model" --batch "$batch" --loss "$loss" --precision "$precision" \
  --out-dir "$dir"
"$check" "$dir/model.pt2" "$dir/reference.pt" "$precision"
