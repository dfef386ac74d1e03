#!/usr/bin/env bash
# slurm/step-scaling.sbatch on a model exported with `splitstep-analysis export` (the tiny
# Sequential of tests/reference/exported), submitted by submit.sh as a user would submit it.
#   tests/slurm/exported.sh PYTHON BINARY CONFIG
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=$1 binary=$2 config=$3
dir=$(mktemp -d /tmp/splitstep-slurm-exported.XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
(cd "$here/../reference/exported" && "$python" -m splitstep_analysis export sequential:model \
  --batch sequential:batch --loss mse -o "$dir/seq.pt2" >/dev/null)
chmod 644 "$dir/seq.pt2"
bash "$here/submit.sh" --model-file "$dir/seq.pt2" "$here/../../slurm/step-scaling.sbatch" \
  "$binary" "$config"
