#!/usr/bin/env bash
# A rank killed mid-sweep (SIGKILL): mpirun ends the others with SIGTERM; rank 0 writes what it
# has, naming the rank that is gone, and every process ends within seconds.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
last=$((ranks - 1))
dir=$(mktemp -d)
job=
trap '[ -n "$job" ] && kill -KILL "$job" 2>/dev/null; rm -rf "$dir"' EXIT

# shellcheck disable=SC2086
timeout 90 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" allreduce --device cpu \
  --bytes 8,1K,64K,1M,4M,16M --samples 5 --warmup 1 --timeout 60s --json "$dir/r.json" \
  >"$dir/r.out" 2>&1 &
job=$!
wait_for_cases "$dir/r.json" 2 60 || fail "no two cases within 60 s"
victim=$(rank_pid "$job" "$last") || fail "no process of rank $last"
killed_at=$SECONDS
kill -KILL "$victim"
wait "$job"
status=$?
job=
output=$(cat "$dir/r.out")
[ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "exit status $status"
[ $((SECONDS - killed_at)) -le 15 ] || fail "the job took $((SECONDS - killed_at)) s to end"
gone="rank $last \([^,]+, pid $victim, gone\) no longer running"
grep -Eq "^splitstep: rank 0 on [^ ]+: (rank [0-9]+ gave up: )?interrupted \(SIGTERM\) during .*; $gone" <<<"$output" \
  || fail "rank 0 does not name rank $last as gone"
check_partial_json "$dir/r.json" "$ranks" 2 "^interrupted \(SIGTERM\) during allreduce .*; $gone"
echo "ok: $(grep -m1 '^splitstep: rank 0' <<<"$output")"
