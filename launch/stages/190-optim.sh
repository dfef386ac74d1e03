# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "the optimizer phase per implementation against torch.optim's (llama)"

stage_optim() {
  needs_gpus 1 || return 1
  local impl status=0
  for impl in ${IMPLS:-loop foreach fused}; do
    run 120 "np1-optim-$impl" mpirun -np 1 "$splitstep" step --config configs/llama.ini \
      --sync-modes none --check off --optimizer-impl "$impl" "${steps[@]}" \
      --json "$dir/np1-optim-$impl.json" || status=1
    # The library model's whole step as splitstep ran it, so that the optimizer phase compares
    # with the optimizer phase.
    run 120 "twin-optim-$impl" "${eager[@]}" --like "$dir/np1-optim-$impl.json" \
      --json "$dir/twin-optim-$impl.json" || status=1
  done
  for impl in ${IMPLS:-loop foreach fused}; do
    "$python" tests/reference/parity.py "$dir/np1-optim-$impl.json" "$dir/twin-optim-$impl.json" \
      >"$dir/parity-optim-$impl.txt" 2>&1 || status=1
    cat "$dir/parity-optim-$impl.txt"
  done
  return "$status"
}
