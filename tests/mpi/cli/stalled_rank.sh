#!/usr/bin/env bash
# A rank that stalls inside a collective ends the job within --timeout plus a few seconds, with
# a message naming a waiting rank, its host and the operation; no rank is left hanging.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
stalled=$((ranks - 1))
start=$SECONDS
# shellcheck disable=SC2086
output=$(timeout 60 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" allreduce \
  --device cpu --bytes 8 --timeout 3s --test-stall-rank "$stalled" 2>&1)
status=$?
elapsed=$((SECONDS - start))
[ "$status" -ne 0 ] || fail "the job exited 0"
[ "$status" -ne 124 ] || fail "the job hung until the test's own 60 s limit"
[ "$elapsed" -le 15 ] || fail "the job took ${elapsed}s, more than the 3 s timeout plus 12 s"
grep -Eq '^splitstep: rank [0-9]+ on [^ ]+ failed: timed out after 3 s waiting for .* during allreduce mpi fp32 8 B' <<<"$output" \
  || fail "no message naming rank, host and operation"
echo "ok: ended in ${elapsed}s: $(grep -m1 '^splitstep: rank' <<<"$output")"
