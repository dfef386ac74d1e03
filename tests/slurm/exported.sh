#!/usr/bin/env bash
# slurm/step-scaling.sbatch on a model exported with `splitstep-analysis export` (the tiny
# Sequential of tests/reference/exported, from the CTest fixture exported_models), submitted by
# submit.sh as a user would submit it.
#   tests/slurm/exported.sh ARCHIVES BINARY CONFIG
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
archives=$1 binary=$2 config=$3
[ -f "$archives/seq.pt2" ] || { echo "FAIL: no seq.pt2 in $archives (export_models.sh)" >&2; exit 1; }
bash "$here/submit.sh" --model-file "$archives/seq.pt2" "$here/../../slurm/step-scaling.sbatch" \
  "$binary" "$config"
