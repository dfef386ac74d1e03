#!/usr/bin/env bash
# A bad option makes every rank exit with status 2 quickly, and the job prints the reason once.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3

for bad in "--min-samples 0" "--bogus" "--bytes 6" "matmull" "--telemetry 1ms" \
  "--trace /nonexistent/trace.json" "step --device cpu --step-graphs on"; do
  start=$SECONDS
  # shellcheck disable=SC2086
  output=$(mpirun_each_rank "$mpiexec" "$ranks" "$binary" $bad 2>&1)
  elapsed=$((SECONDS - start))
  [ "$(grep -c 'status=2$' <<<"$output")" -eq "$ranks" ] || fail "'$bad': not every rank exited 2"
  [ "$(grep -c '^splitstep: error: ' <<<"$output")" -eq 1 ] || fail "'$bad': error not printed once"
  [ "$(grep '^splitstep: error: ' <<<"$output" | wc -l)" -eq 1 ] || fail "'$bad': not one line"
  [ "$elapsed" -le 30 ] || fail "'$bad': took ${elapsed}s"
  echo "ok: '$bad' -> $(grep '^splitstep: error: ' <<<"$output") (${elapsed}s)"
done
