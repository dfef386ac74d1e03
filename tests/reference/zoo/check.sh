#!/usr/bin/env bash
# One zoo model against its library: export.py writes what the library's model computes at each
# of the model's CPU shapes, splitstep_zoo_check holds splitstep's module to it.
#   check.sh PYTHON ZOO_CHECK MODEL
set -euo pipefail
# Paths given relative to the caller's directory still name the same files after the cd below.
absolute() { case $1 in */*) realpath -s "$1" ;; *) printf '%s\n' "$1" ;; esac; }
python=$(absolute "$1") check=$(absolute "$2") model=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$(dirname "$0")"
"$python" export.py --model "$model" --out-dir "$dir"
"$check" "$dir"/*.pt
