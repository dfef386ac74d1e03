# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "link health by pairs, a slowed rank, one-rank groups refused, GPUs permuted (2 GPUs)"

stage_groups() {
  needs_gpus 2 || return 1
  local status=0
  run 90 pairs "${pair[@]}" "$splitstep" allreduce --groups pairs --bytes 256M,1G --max-time 2s \
    --json "$dir/pairs.json" || status=1
  run 90 pairs-slow "${pair[@]}" "$splitstep" allreduce --groups pairs --bytes 256M,1G \
    --max-time 2s --test-slow-rank 1 --test-slow-ms 1 --json "$dir/pairs-slow.json" || status=1
  # One-rank groups are refused: this run is meant to end with status 2.
  run 30 one-rank-groups "${pair[@]}" "$splitstep" allreduce --groups '0;1'
  [ $? -eq 2 ] || { echo "one-rank groups were not refused with status 2"; status=1; }
  CUDA_VISIBLE_DEVICES=1,0 run 60 permuted "${pair[@]}" -x CUDA_VISIBLE_DEVICES "$splitstep" \
    allreduce --bytes 1G --max-time 1s --json "$dir/permuted.json" || status=1
  grep -h -E "^  rank [01]:|GPU links|busbw by group|group 0,1|status|error" "$dir"/pairs*.txt \
    "$dir"/one-rank-groups.txt "$dir"/permuted.txt | cut -c1-160
  return "$status"
}
