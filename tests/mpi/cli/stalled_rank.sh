#!/usr/bin/env bash
# A rank that stops answering mid-sweep (--test-stall-rank, after two cases) ends the job within
# --timeout plus a few seconds: the other ranks name it, its host and pid, and the operation in
# progress; the JSON keeps the cases finished before. The same for a stall during matmul, which
# has no collective of its own.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
stalled=$((ranks - 1))
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

run() {
  local name=$1
  shift
  start=$SECONDS
  # shellcheck disable=SC2086
  output=$(timeout 60 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" --device cpu \
    --samples 3 --warmup 1 --timeout 3s --test-stall-rank "$stalled" --test-stall-after 2 \
    --json "$dir/$name.json" "$@" 2>&1)
  status=$?
  elapsed=$((SECONDS - start))
  [ "$status" -ne 0 ] || fail "$name: the job exited 0"
  [ "$status" -ne 124 ] || fail "$name: the job hung until the test's own 60 s limit"
  [ "$elapsed" -le 20 ] || fail "$name: the job took ${elapsed}s, more than the 3 s timeout plus 17 s"
  for ((r = 0; r < stalled; r++)); do
    [ "$(grep -c "^splitstep: rank $r on " <<<"$output")" -eq 1 ] || fail "$name: rank $r did not print one line"
  done
}

run allreduce allreduce --bytes 8,1K,64K,1M
blame="rank $stalled \([^,]+, pid [0-9]+\) did not answer"
grep -Eq "^splitstep: rank 0 on [^ ]+: (rank [0-9]+ gave up: )?$blame: rank [0-9]+ waited 3 s for .* during allreduce mpi fp32 64 KiB \(--timeout\)$" <<<"$output" \
  || fail "rank 0's line does not name rank $stalled and the case in progress"
check_partial_json "$dir/allreduce.json" "$ranks" 2 "^$blame: .* during allreduce mpi fp32 64 KiB"
echo "ok: allreduce ended in ${elapsed}s: $(grep -m1 '^splitstep: rank 0' <<<"$output")"

run matmul matmul --matmul-sizes 16,32,48 --matmul-dtypes fp32
grep -Eq "^splitstep: rank 0 on [^ ]+: (rank [0-9]+ gave up: )?$blame: .* during matmul fp32 n=48 \(--timeout\)$" <<<"$output" \
  || fail "rank 0's line does not name rank $stalled and the matmul case"
check_partial_json "$dir/matmul.json" "$ranks" 2 "during matmul fp32 n=48"
echo "ok: matmul ended in ${elapsed}s: $(grep -m1 '^splitstep: rank 0' <<<"$output")"
