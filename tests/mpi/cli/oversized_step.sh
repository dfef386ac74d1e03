#!/usr/bin/env bash
# A step shape far past memory is refused before anything is allocated: every rank exits 2
# within 10 s, and the job prints one line naming the option and the estimate.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3

shapes=(
  "--mlp-width 65536 --mlp-layers 64"
  "--mlp-batch 1048576 --mlp-width 65536"
  "--step-models gpt2 --gpt2-seq 1048576 --gpt2-positions 1048576"
  "--step-models gpt2 --gpt2-width 65536 --gpt2-heads 64 --gpt2-layers 1024"
  "--step-models llama --llama-vocab 1048576 --llama-seq 65536"
  "--step-models vit-b16 --vit-image 8192"
  "--step-models resnet50 --resnet50-image 8192 --resnet50-width 1024"
  "--step-models resnet50 --resnet50-batch 1048576"
)
for shape in "${shapes[@]}"; do
  start=$SECONDS
  # shellcheck disable=SC2086
  output=$(mpirun_each_rank "$mpiexec" "$ranks" "$binary" step --device cpu $shape 2>&1)
  elapsed=$((SECONDS - start))
  [ "$(grep -c 'status=2$' <<<"$output")" -eq "$ranks" ] || fail "'$shape': not every rank exited 2: $output"
  line=$(grep '^splitstep: error: ' <<<"$output")
  [ "$(wc -l <<<"$line")" -eq 1 ] || fail "'$shape': error not printed once: $output"
  grep -q -- '--step-models: .* needs about .* per rank .* more than the .* usable on .*; lower --' <<<"$line" \
    || fail "'$shape': unexpected message: $line"
  [ "$elapsed" -le 10 ] || fail "'$shape': took ${elapsed}s"
  echo "ok: '$shape' -> $line (${elapsed}s)"
done
