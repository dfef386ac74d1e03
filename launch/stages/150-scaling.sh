# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "allreduce sweep and reference steps at each of SCALING_RANKS, the scaling table"

scaling_ranks=()
check_scaling() {
  local n
  read -r -a scaling_ranks <<<"${SCALING_RANKS:-}"
  if [ ${#scaling_ranks[@]} -eq 0 ]; then
    for n in 1 2 4 8; do [ "$n" -le "$gpus" ] && scaling_ranks+=("$n"); done
  fi
  for n in "${scaling_ranks[@]}"; do
    case $n in '' | *[!0-9]* | 0) bad "SCALING_RANKS: '$n' is not a rank count" ;; esac
    [ "$n" -le "$gpus" ] || bad "SCALING_RANKS: $n ranks, but $gpus GPU(s) here"
  done
}

# The allreduce sweep (nccl-tests' sizes) and the reference steps (with the GEMM ceiling and the
# in-place sweep they are projected from) at each rank count; then the scaling table and the
# smallest multi-rank run's projections beside the larger runs' measurements.
stage_scaling() {
  needs_gpus 1 || return 1
  local n kind source='' files=() extra status=0
  read -r -a extra <<<"${SPLITSTEP_SCALING_ARGS:-}"
  for n in "${scaling_ranks[@]}"; do
    run 600 "allreduce-np$n" mpirun -np "$n" --bind-to none "$splitstep" allreduce --device cuda \
      --min-bytes 8 --max-bytes 4G --json "$dir/allreduce-np$n.json" "${extra[@]}" || status=1
    run 600 "step-np$n" mpirun -np "$n" --bind-to none "$splitstep" allreduce matmul step \
      --config configs/h200-step.ini --matmul-sizes 8192 --matmul-dtypes bf16 --min-bytes 1M \
      --max-bytes 1G --placement in --json "$dir/step-np$n.json" "${extra[@]}" || status=1
    files+=("$dir/allreduce-np$n.json" "$dir/step-np$n.json")
    [[ -z $source && $n -ge 2 ]] && source=$n
  done
  analysis scaling "${files[@]}" | tee "$dir/scaling-table.md" || status=1
  if [[ -n $source && ${#scaling_ranks[@]} -gt 1 ]]; then
    # A projection off the mark is a finding, recorded in the file, not a failed stage.
    for kind in allreduce step; do
      analysis projection "$dir/$kind-np$source.json" "$dir/$kind"-np*.json
    done | tee "$dir/projection-check.txt"
  fi
  return "$status"
}
