# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "the reference benchmark, configs/h200-reference.ini, on one rank per GPU"

stage_reference() {
  needs_gpus 1 || return 1
  run 900 reference mpirun -np "$ranks" "$splitstep" --config configs/h200-reference.ini \
    --json "$dir/reference.json"
}
