# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "the reference MLP step's T_seq and T_ddp against the allreduce model's (2 GPUs)"

stage_projection() {
  needs_gpus 2 || return 1
  run 240 step-projection "${pair[@]}" "$splitstep" allreduce step --config configs/h200-step.ini \
    --step-models mlp --min-bytes 1M --max-bytes 1G --step-factor 2 --placement in \
    --max-time 3s --json "$dir/step-projection.json" || return 1
  grep -A8 'projected from the allreduce model' "$dir/step-projection.txt"
}
