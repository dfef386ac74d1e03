#!/usr/bin/env bash
# Ranks started with different options are refused at start, naming the ranks that differ.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
others=$((ranks - 1))
wrap='"$@"; echo "rank=${OMPI_COMM_WORLD_RANK:-?} status=$?"'
common=(--device cpu --matmul-sizes 8 --bytes 8)

# shellcheck disable=SC2086
output=$(timeout 60 "$mpiexec" ${SPLITSTEP_MPIEXEC_FLAGS:-} \
  -np 1 sh -c "$wrap" splitstep "$binary" "${common[@]}" --samples 3 : \
  -np "$others" sh -c "$wrap" splitstep "$binary" "${common[@]}" --samples 4 2>&1)
[ "$(grep -c 'status=2$' <<<"$output")" -eq "$ranks" ] || fail "not every rank exited 2"
differing=$(for r in $(seq 1 "$others"); do printf '%s \\([^)]+\\), ' "$r"; done)
differing=${differing%, }
grep -Eq "^splitstep: error: run plan or binary differs between ranks: rank\(s\) $differing differ from rank 0" <<<"$output" \
  || fail "the message does not name ranks 1..$others"
[ "$(grep -c '^splitstep: error: ' <<<"$output")" -eq 1 ] || fail "error not printed once"
grep -q '^matmul' <<<"$output" && fail "a case ran despite the mismatch"
echo "ok: $(grep '^splitstep: error: ' <<<"$output")"
