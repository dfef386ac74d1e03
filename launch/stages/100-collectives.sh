# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "alltoall, sendrecv, reduce, gather, scatter, hypercube beside nccl-tests (2 GPUs)"

stage_collectives() {
  needs_gpus 2 || return 1
  local c status=0
  run 240 new-collectives "${pair[@]}" "$splitstep" alltoall sendrecv reduce gather scatter \
    hypercube --min-bytes 8 --max-bytes 1G --step-factor 4 --max-time 1s \
    --json "$dir/new-collectives.json" || status=1
  for c in alltoall sendrecv reduce gather scatter hypercube; do
    run 60 "${c}_perf" "${pair[@]}" "$anchor/${c}_perf" -b 8 -e 1G -f 4 -g 1 -n 50 -w 10 \
      || status=1
  done
  analysis nccl-tests compare "$dir/new-collectives.json" \
    "$dir"/{alltoall,sendrecv,reduce,gather,scatter,hypercube}_perf.txt \
    | tee "$dir/new-collectives-vs-nccl-tests.txt" || status=1
  return "$status"
}
