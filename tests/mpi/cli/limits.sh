#!/usr/bin/env bash
# Inputs within each option's range whose combination cannot run, and outputs that cannot be
# written, are refused at start (every rank exits 2, the reason printed once); a sweep skips the
# case beyond a limit with a note and runs the rest.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
dir=$(mktemp -d)
trap 'chmod -R u+w "$dir"; rm -rf "$dir"' EXIT
touch "$dir/read-only.json"
chmod 444 "$dir/read-only.json"
# Each rank's share of the host's available memory, in GiB, as the budget reckons it.
share=$(awk -v r="$ranks" '/^MemAvailable:/ {printf "%d", $2 / 1048576 / r}' /proc/meminfo)

# A rank the options name must be one of this launch's (a delay on rank 9 would never happen).
refused "--delay-rank: rank 9 is not in this run of $ranks ranks (0 to $((ranks - 1)))" step --delay-rank 9 --delay-ms 1
refused "--config: '/dev/zero' is not a regular file" --config /dev/zero
refused "--config: '$dir' is not a regular file" --config "$dir"
refused "--json: '$dir' is a directory" allreduce --json "$dir"
refused "--json: '$dir/read-only.json' is read-only (it would be replaced)" allreduce --json "$dir/read-only.json"
refused "--json: '$dir/missing/r.json' is in a directory that does not exist" allreduce --json "$dir/missing/r.json"
refused "--json: '/proc/splitstep.json' cannot be created: " allreduce --json /proc/splitstep.json
refused "--bytes: no allreduce case fits on these ranks; mpi fp32 8 GiB: 2147483648 elements per call, more than mpi counts in one call (2147483647)" \
  allreduce --bytes 8G
# Memory estimates, where this host has less than they need.
if [ "$share" -lt 200 ]; then
  refused "--membw-bytes: no size fits on these ranks; 64 GiB per array needs 192 GiB of host (MemAvailable) memory per rank" \
    membw --membw-bytes 64G
fi
if [ "$share" -lt 50 ]; then
  refused "--matmul-sizes: no case fits on these ranks; fp32 n=65536: needs 48.0 GiB of host (MemAvailable) memory per rank" \
    matmul --matmul-sizes 65536 --matmul-dtypes fp32
fi

# In a sweep, the case beyond MPI's element count is skipped with a note; the others run.
# shellcheck disable=SC2086
output=$(timeout 60 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" allreduce \
  --device cpu --bytes 8,1K,8G --samples 3 --warmup 1 --json "$dir/sweep.json" 2>&1) \
  || fail "the sweep exited non-zero"
grep -q '^  skipped: 2147483648 elements per call, more than mpi counts in one call (2147483647): mpi fp32 8 GiB$' <<<"$output" \
  || fail "no skip line for 8 GiB"
python3 - "$dir/sweep.json" <<'PY' || fail "sweep JSON"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["complete"] is True and doc["ended"] == "completed", doc["ended"]
cases = {c["case"]: c for c in doc["cases"]}
assert not cases["mpi fp32 8 B"]["skipped"] and not cases["mpi fp32 1 KiB"]["skipped"]
assert cases["mpi fp32 8 GiB"]["skipped"], cases["mpi fp32 8 GiB"]
assert "elements per call" in cases["mpi fp32 8 GiB"]["notes"][0]
print("json ok: 8 GiB skipped, the rest measured")
PY
echo "ok: the sweep skipped 8 GiB and ran the rest"
