#!/usr/bin/env bash
# Ctrl-C: to mpirun (which sends every rank SIGTERM), and to a process run without mpirun. Each
# keeps the cases finished before in the JSON with the reason, prints one line and exits
# non-zero (128 + the signal where the process itself was interrupted).
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
dir=$(mktemp -d)
job=
trap '[ -n "$job" ] && end_job "$job"; rm -rf "$dir"' EXIT
sweep=("${SLOW_SWEEP[@]}" --timeout 60s)

# shellcheck disable=SC2086
"$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" "${sweep[@]}" \
  --json "$dir/mpirun.json" >"$dir/mpirun.out" 2>&1 &
job=$!
wait_for_cases "$dir/mpirun.json" 2 60 "$job" || fail "mpirun: no two cases within 60 s: $(tail -5 "$dir/mpirun.out")"
sent=$SECONDS
kill -INT "$job"
wait "$job"
status=$?
output=$(cat "$dir/mpirun.out")
[ "$status" -ne 0 ] || fail "mpirun: exit status 0"
[ $((SECONDS - sent)) -le 10 ] || fail "mpirun: took $((SECONDS - sent)) s to end"
# mpirun stops forwarding the ranks' output while it ends the job: any rank's line may be the one
# that gets through; rank 0's record is in the JSON below.
# mpirun turns the Ctrl-C into SIGTERM: the ranks say what they received, and from whom. It may
# land while a case runs or while its results are gathered.
from_mpirun="interrupted \(SIGTERM from [^,]+, pid $job\) during (gathering the results of )?allreduce "
grep -Eq "^splitstep: rank [0-9]+ on [^ ]+: (rank [0-9]+ gave up: )?$from_mpirun" <<<"$output" \
  || fail "mpirun: no rank says it was interrupted by mpirun's SIGTERM"
check_partial_json "$dir/mpirun.json" "$ranks" 2 "^$from_mpirun"
job=
echo "ok: mpirun: $(grep -m1 '^splitstep: rank' <<<"$output")"

# One process, no launcher: the signal reaches it directly.
"$binary" "${sweep[@]}" --json "$dir/alone.json" >"$dir/alone.out" 2>&1 &
job=$!
wait_for_cases "$dir/alone.json" 2 60 "$job" || fail "alone: no two cases within 60 s: $(tail -5 "$dir/alone.out")"
kill -INT "$job"
wait "$job"
status=$?
job=
[ "$status" -eq 130 ] || fail "alone: exit status $status, expected 130"
grep -Eq "^splitstep: rank 0 on [^ ]+: interrupted \(SIGINT from [^,]+, pid $$\) during (gathering the results of )?allreduce " "$dir/alone.out" \
  || fail "alone: no line saying it was interrupted by this script"
check_partial_json "$dir/alone.json" 1 2 "^interrupted \(SIGINT from [^,]+, pid $$\) during (gathering the results of )?allreduce "

# A process that does not reach a wait (here stalled for good) is ended by the signal watch
# itself, with the same reason, soon after.
"$binary" "${sweep[@]}" --test-stall-rank 0 --test-stall-after 2 --json "$dir/busy.json" \
  >"$dir/busy.out" 2>&1 &
job=$!
wait_for_cases "$dir/busy.json" 2 60 "$job" || fail "busy: no two cases within 60 s: $(tail -5 "$dir/busy.out")"
sleep 0.5
kill -TERM "$job"
wait "$job"
status=$?
job=
[ "$status" -eq 143 ] || fail "busy: exit status $status, expected 143"
check_partial_json "$dir/busy.json" 1 2 '^interrupted \(SIGTERM from [^)]+\) during '
echo "ok: one process: exit 130 on SIGINT, 143 on SIGTERM while busy"
