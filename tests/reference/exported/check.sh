#!/usr/bin/env bash
# One exported model against eager PyTorch: reference.py exports it with splitstep-analysis
# export and writes eager's loss and gradients, splitstep_exported_check runs the archive's graph;
# then both profiles' computing ATen operations, names and calls (kernel_table.py --cpu-ops),
# where the graph may lack only what eager ran to make transformers' mask decisions.
#   check.sh PYTHON EXPORTED_CHECK MODULE:MODEL MODULE:BATCH LOSS [PRECISION]
set -euo pipefail
absolute() { case $1 in */*) realpath -s "$1" ;; *) printf '%s\n' "$1" ;; esac; }
python=$(absolute "$1") check=$(absolute "$2") model=$3 batch=$4 loss=$5 precision=${6:-fp32}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$(dirname "$0")"
"$python" reference.py "$model" --batch "$batch" --loss "$loss" --precision "$precision" \
  --out-dir "$dir" --trace "$dir/eager.json"
"$check" "$dir/model.pt2" "$dir/reference.pt" "$precision" "$dir/exported.json"
"$python" ../kernel_table.py "$dir/exported.json" "$dir/eager.json" --steps 1 --cpu-ops --check \
  --labels exported,eager --top 0 --left-out-scope "$("$python" -c \
  'from splitstep_analysis.export import DECISION_SCOPE; print(DECISION_SCOPE)')"
