# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "every suite, configs/quick.ini, a rank per GPU (no GPU: 2 CPU ranks, cpu-quick.ini)"

stage_quick() {
  if [ "$gpus" -eq 0 ]; then
    echo "no GPU: 2 ranks on the CPU with configs/cpu-quick.ini"
    run 300 quick mpirun -np 2 --oversubscribe "$splitstep" all --config configs/cpu-quick.ini \
      --json "$dir/quick.json"
  else
    run 300 quick mpirun -np "$ranks" "$splitstep" all --config configs/quick.ini \
      --json "$dir/quick.json"
  fi
}
