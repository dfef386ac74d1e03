# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "the default report REPEATS times, then matmul beside a PyTorch GEMM loop"

# The same run repeated and a run slowed on purpose: the inputs of `splitstep-analysis compare`.
stage_repeat() {
  needs_gpus 1 || return 1
  local np=(mpirun -np "$ranks") n gpu status=0
  run 200 default-1 "${np[@]}" "$splitstep" --json "$dir/default-1.json" \
    --trace "$dir/default-1-trace.json" --csv "$dir/default-1.csv" || status=1
  for ((n = 2; n <= ${REPEATS:-2}; n++)); do
    run 200 "default-$n" "${np[@]}" "$splitstep" --json "$dir/default-$n.json" || status=1
  done
  # The competitor: bf16 GEMMs back to back on every GPU, for a little longer than matmul takes.
  for ((gpu = 0; gpu < gpus; gpu++)); do
    CUDA_VISIBLE_DEVICES=$gpu timeout 60 python3 -c '
import time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
end = time.time() + 45
while time.time() < end:
    for _ in range(50): a @ a
    torch.cuda.synchronize()' &
  done
  sleep 5
  run 60 matmul-shared "${np[@]}" "$splitstep" matmul --json "$dir/matmul-shared.json" || status=1
  wait
  gzip -f "$dir/default-1-trace.json"
  return "$status"
}
