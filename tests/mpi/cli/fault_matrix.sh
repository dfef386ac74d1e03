#!/usr/bin/env bash
# Every way a job is cut short, each timed from the fault to the job's end: SIGSTOP and SIGKILL
# of rank 0 and of the last rank, SIGINT and SIGTERM to mpirun (once, and twice 10 ms apart), and
# SIGTERM twice to every rank while rank 0 is busy (what srun does at a time limit), and a rank 0
# stopped past --timeout then interrupted. Each: the
# job ends in time, the reason is in the file where rank 0 could write it, the culprit is named
# and no innocent rank is, the exit status, and no process is left behind.
#
#   fault_matrix.sh MPIEXEC RANKS BINARY [SCENARIO...]   (all scenarios when none is named)
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
shift 3
last=$((ranks - 1))
dir=$(mktemp -d)
job=
trap '[ -n "$job" ] && end_job "$job"; rm -rf "$dir"' EXIT
# --timeout 8 s: a grace of 2 s (a quarter) for the roll call.
timeout_s=8 grace_s=2

# start NAME ARGS...: mpirun in the background, until two cases are in its JSON; sets job, pids
# (every rank's process, by rank) and json.
start() {
  local name=$1 r
  shift
  json=$dir/$name.json
  # shellcheck disable=SC2086
  "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" "${SLOW_SWEEP[@]}" \
    --timeout "${timeout_s}s" --json "$json" "$@" >"$dir/$name.out" 2>&1 &
  job=$!
  wait_for_cases "$json" 2 60 "$job" || fail "$name: no two cases within 60 s: $(tail -5 "$dir/$name.out")"
  pids=()
  for r in $(seq 0 "$last"); do
    pids[r]=$(rank_pid "$job" "$r") || fail "$name: no process of rank $r"
  done
  name_=$name
}

# finish BOUND: waits for the job; sets status, took (seconds since the fault, to 0.1 s) and
# output; fails when it took more than BOUND seconds or left a rank's process behind.
finish() {
  local bound=$1 p
  wait "$job"
  status=$?
  job=
  took=$(awk -v a="$fault_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  output=$(cat "$dir/$name_.out")
  awk -v t="$took" -v b="$bound" 'BEGIN { exit !(t <= b) }' \
    || fail "$name_: the job ended $took s after the fault, more than $bound s"
  for p in "${pids[@]}"; do
    if outlived "$p"; then
      kill -CONT "$p"
      kill -KILL "$p"
      fail "$name_: rank process $p ($(awk '{print $3}' "/proc/$p/stat")) outlived the job"
    fi
  done
}

fault() { fault_at=$(date +%s.%N); }

# no_innocent RANK: no line, nor the file's reason, names a rank other than RANK gone or stopped.
no_innocent() {
  local blamed ended
  ended=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ended"])' "$json" 2>/dev/null)
  blamed=$(grep -oE 'rank [0-9]+ \([^)]*, (gone|stopped)\)' <<<"$output
$ended" | grep -vE "^rank $1 " | sort -u)
  [ -z "$blamed" ] || fail "$name_: an innocent rank is blamed: $blamed"
}

ok() { echo "ok: $name_: ended in $took s, status $status: $1"; }

# A stopped rank: the others' deadline is --timeout, then one grace of roll call; then the job
# ends at once, whichever rank is stopped, rank 0 included (which cannot write its file then).
stopped() {
  local victim=$1 line
  start "stopped_rank$victim"
  fault
  kill -STOP "${pids[victim]}"
  finish $((timeout_s + grace_s + 3))
  [ "$status" -ne 0 ] || fail "$name_: exit status 0"
  line="rank $victim \([^,]+, pid ${pids[victim]}, stopped\) did not answer: rank [0-9]+ waited ${timeout_s} s"
  grep -Eq "^splitstep: rank [0-9]+ on [^ ]+: (rank [0-9]+ gave up: )?$line" <<<"$output" \
    || fail "$name_: no rank names rank $victim as stopped"
  [ "$victim" -eq 0 ] || check_partial_json "$json" "$ranks" 2 "^$line"
  no_innocent "$victim"
  ok "$(grep -m1 -E "did not answer" <<<"$output")"
}

# A killed rank: mpirun sends the others SIGTERM; rank 0, alive, writes the reason naming the
# killed rank alone.
killed() {
  local victim=$1
  start "killed_rank$victim"
  fault
  kill -KILL "${pids[victim]}"
  finish 10
  [ "$status" -ne 0 ] || fail "$name_: exit status 0"
  grep -Eq "rank $victim \([^,]+, pid ${pids[victim]}, gone\)" <<<"$output" \
    || [ "$victim" -ne 0 ] || fail "$name_: no rank names rank 0 as gone"
  [ "$victim" -eq 0 ] \
    || check_partial_json "$json" "$ranks" 2 "^interrupted \(SIGTERM from [^)]+\) during .*; rank $victim \([^,]+, pid ${pids[victim]}, gone\) no longer running"
  no_innocent "$victim"
  ok "$(grep -m1 -E "gone" <<<"$output")"
}

# SIGNAL to mpirun, COUNT times 10 ms apart: it sends every rank SIGTERM (a Ctrl-C too), which
# the reason says, naming mpirun as the sender; or, at the second, it leaves without a word.
to_mpirun() {
  local signal=$1 count=$2 i launcher
  start "mpirun_${signal}_x$count"
  launcher=$job
  fault
  for i in $(seq "$count"); do
    kill "-$signal" "$job"
    sleep 0.01
  done
  finish 10
  [ "$status" -ne 0 ] || fail "$name_: exit status 0"
  # At a second signal mpirun leaves at once, often before it signalled the ranks: they see
  # their launcher gone.
  check_partial_json "$json" "$ranks" 2 \
    "^interrupted \((SIGTERM from|launcher) [^,]+, pid $launcher(, gone)?\) during (gathering the results of )?allreduce "
  no_innocent none
  ok "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ended"])' "$json")"
}

# SIGTERM twice, 10 ms apart, to every rank while rank 0 reaches no wait (stalled): the reason
# is on disk before the second ends it, and every rank's status, 143, is mpirun's.
twice_to_ranks() {
  local p
  start ranks_TERM_x2 --test-stall-rank 0 --test-stall-after 2
  sleep 0.5
  fault
  for p in "${pids[@]}"; do kill -TERM "$p"; done
  sleep 0.01
  for p in "${pids[@]}"; do kill -TERM "$p"; done
  finish 10
  [ "$status" -eq 143 ] || fail "$name_: mpirun's exit status $status, expected 143"
  check_partial_json "$json" "$ranks" 2 "^interrupted \(SIGTERM from [^)]+\) during "
  no_innocent none
  ok "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ended"])' "$json")"
}

# Rank 0 stopped past --timeout, then continued and sent SIGTERM with every rank (what a launcher
# does once another rank gave up on it): rank 0 is named the one stopped, and nobody else is.
stopped_then_interrupted() {
  local p
  start stopped_rank0_then_TERM
  kill -STOP "${pids[0]}"
  sleep "$timeout_s.5"
  fault
  kill -CONT "${pids[0]}"
  for p in "${pids[@]}"; do kill -TERM "$p"; done
  finish 10
  [ "$status" -ne 0 ] || fail "$name_: exit status 0"
  # Either rank 0's interrupt came first, and it owns up, or the others' deadline had passed and
  # their roll call, which rank 0 answered once continued, named it stopped: the culprit, both.
  check_partial_json "$json" "$ranks" 2 \
    "^(interrupted \(SIGTERM from [^)]+\) during .*; this rank was stopped for ${timeout_s}\.[0-9] s, longer than --timeout|rank 0 \([^)]+\) was stopped for ${timeout_s}\.[0-9] s: )"
  no_innocent 0
  ok "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ended"])' "$json")"
}

scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(stopped0 stoppedlast killed0 killedlast
  stopped0_then_TERM INTx1 INTx2 TERMx1 TERMx2 ranks_TERMx2)
for s in "${scenarios[@]}"; do
  case $s in
    stopped0) stopped 0 ;;
    stoppedlast) stopped "$last" ;;
    stopped0_then_TERM) stopped_then_interrupted ;;
    killed0) killed 0 ;;
    killedlast) killed "$last" ;;
    INTx1) to_mpirun INT 1 ;;
    INTx2) to_mpirun INT 2 ;;
    TERMx1) to_mpirun TERM 1 ;;
    TERMx2) to_mpirun TERM 2 ;;
    ranks_TERMx2) twice_to_ranks ;;
    *) fail "no scenario '$s'" ;;
  esac
done
