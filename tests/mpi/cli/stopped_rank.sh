#!/usr/bin/env bash
# A rank stopped from outside (SIGSTOP) mid-sweep: the others name it as stopped and keep the
# cases finished before in the JSON. Continued (SIGCONT) after they gave up, it says that it was
# the late one.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
last=$((ranks - 1))
dir=$(mktemp -d)
job=
trap '[ -n "$job" ] && end_job "$job"; rm -rf "$dir"' EXIT

# start NAME TIMEOUT: a sweep in the background, until two cases are in its JSON; sets victim.
start() {
  rm -f "$dir/$1.json"
  # shellcheck disable=SC2086
  timeout 90 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" "${SLOW_SWEEP[@]}" \
    --timeout "$2" --json "$dir/$1.json" >"$dir/$1.out" 2>&1 &
  job=$!
  wait_for_cases "$dir/$1.json" 2 60 "$job" || fail "$1: no two cases within 60 s: $(tail -5 "$dir/$1.out")"
  victim=$(rank_pid "$job" "$last") || fail "$1: no process of rank $last"
}

start stopped 4s
kill -STOP "$victim"
wait "$job"
status=$?
job=
output=$(cat "$dir/stopped.out")
[ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "stopped: exit status $status"
blame="rank $last \([^,]+, pid $victim, stopped\) did not answer"
grep -Eq "^splitstep: rank 0 on [^ ]+: (rank [0-9]+ gave up: )?$blame: " <<<"$output" \
  || fail "stopped: rank 0 does not name rank $last as stopped"
check_partial_json "$dir/stopped.json" "$ranks" 2 "^$blame: rank [0-9]+ waited 4 s for .* during allreduce mpi fp32"
echo "ok: $(grep -m1 '^splitstep: rank 0' <<<"$output")"

# Continued within the others' roll call (8 s timeout, 2 s of answers): it answers that it was
# stopped, and learns that the others gave up because of it.
start late 8s
kill -STOP "$victim"
sleep 9
kill -CONT "$victim"
wait "$job"
status=$?
job=
output=$(cat "$dir/late.out")
[ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "late: exit status $status"
stopped="rank $last \([^,]+, pid $victim\) was stopped for [0-9.]+ s"
grep -Eq "^splitstep: rank $last on [^ ]+: this rank was late; the others gave up: $stopped: " <<<"$output" \
  || fail "late: rank $last does not say that it was the late one"
grep -Eq "^splitstep: rank 0 on [^ ]+: (rank [0-9]+ gave up: )?$stopped: " <<<"$output" \
  || fail "late: rank 0 does not name rank $last as stopped"
check_partial_json "$dir/late.json" "$ranks" 2 "^$stopped: "
echo "ok: $(grep -m1 "^splitstep: rank $last" <<<"$output")"
