# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "the reference presets on 2 GPUs in every mode: check, breakdown, ledger"

stage_verdict() {
  needs_gpus 2 || return 1
  local status=0
  run 240 np2-h200-step mpirun -np 2 "$splitstep" step --config configs/h200-step.ini \
    --json "$dir/np2-h200-step.json" || status=1
  run 240 np2-llama mpirun -np 2 "$splitstep" step \
    --config configs/llama.ini --sync-modes none,sequential,overlap "${steps[@]}" \
    --json "$dir/np2-llama.json" || status=1
  grep -E "check|breakdown|last bucket|late rank|gradients vs" "$dir"/np2-*.txt | cut -c1-160
  return "$status"
}
