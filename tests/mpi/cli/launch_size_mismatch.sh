#!/usr/bin/env bash
# A launcher that started N copies of a one-rank world (srun without PMI, a foreign mpirun) is
# named and refused.
set -u
source "$(dirname "$0")/common.sh"
binary=$1
output=$(SLURM_NTASKS=4 timeout 60 "$binary" --device cpu --matmul-sizes 8 2>&1)
status=$?
[ "$status" -eq 2 ] || fail "exit status $status, expected 2"
grep -q '^splitstep: error: the launcher started 4 processes (SLURM_NTASKS=4) but the MPI world has 1 rank(s)' <<<"$output" \
  || fail "message does not name the mismatch"
echo "ok: $output"
