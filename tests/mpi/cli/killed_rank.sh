#!/usr/bin/env bash
# A rank killed mid-sweep (SIGKILL): mpirun ends the others with SIGTERM; rank 0 writes what it
# has, naming the rank that is gone, and every process ends within seconds.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
last=$((ranks - 1))
dir=$(mktemp -d)
job=
trap '[ -n "$job" ] && end_job "$job"; rm -rf "$dir"' EXIT

# shellcheck disable=SC2086
timeout 90 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" "${SLOW_SWEEP[@]}" \
  --timeout 60s --json "$dir/r.json" >"$dir/r.out" 2>&1 &
job=$!
wait_for_cases "$dir/r.json" 2 60 "$job" || fail "no two cases within 60 s: $(tail -5 "$dir/r.out")"
victim=$(rank_pid "$job" "$last") || fail "no process of rank $last"
killed_at=$SECONDS
kill -KILL "$victim"
wait "$job"
status=$?
job=
output=$(cat "$dir/r.out")
[ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "exit status $status"
[ $((SECONDS - killed_at)) -le 15 ] || fail "the job took $((SECONDS - killed_at)) s to end"
# The killed rank alone: the ranks the launcher ended with SIGTERM are not to blame.
gone="rank $last \([^,]+, pid $victim, gone\) no longer running"
# mpirun stops forwarding the ranks' output while it ends the job: any rank's error line, or rank
# 0's console line, may be the one that gets through; rank 0's record is in the JSON below.
grep -Eq "^(splitstep: rank [0-9]+ on [^ ]+: (rank [0-9]+ gave up: )?|The run ended early: )interrupted \(SIGTERM from [^)]+\) during .*; $gone" <<<"$output" \
  || fail "no rank names rank $last as gone"
check_partial_json "$dir/r.json" "$ranks" 2 "^interrupted \(SIGTERM from [^)]+\) during (gathering the results of )?allreduce .*; $gone"
echo "ok: $(grep -m1 -E '^(splitstep: rank 0|The run ended early)' <<<"$output")"
