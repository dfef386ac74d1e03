# Shared by the CLI tests: fail with a message, and run splitstep under mpirun so that every rank
# reports its own exit status ("rank=R status=S").
fail() {
  echo "FAIL: $*" >&2
  [ -n "${output:-}" ] && printf '%s\n' "--- output ---" "$output" >&2
  exit 1
}

# mpirun_each_rank MPIEXEC RANKS BINARY ARGS...: one line "rank=R status=S" per rank on stdout.
mpirun_each_rank() {
  local mpiexec=$1 ranks=$2
  shift 2
  # shellcheck disable=SC2086
  timeout 60 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} \
    sh -c '"$@"; echo "rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-?}} status=$?"' splitstep "$@"
}

# refused EXPECTED ARGS...: a run on CPU ranks is refused at start: every rank exits 2 within 30
# s and the job prints one line, "splitstep: error: EXPECTED..." (a grep regex).
refused() {
  local expected=$1
  shift
  local start=$SECONDS
  output=$(mpirun_each_rank "$mpiexec" "$ranks" "$binary" --device cpu "$@" 2>&1)
  [ "$(grep -c 'status=2$' <<<"$output")" -eq "$ranks" ] || fail "'$*': not every rank exited 2"
  [ "$(grep -c '^splitstep: error: ' <<<"$output")" -eq 1 ] || fail "'$*': error not printed once"
  grep -q "^splitstep: error: $expected" <<<"$output" || fail "'$*': not '$expected'"
  [ $((SECONDS - start)) -le 30 ] || fail "'$*': took $((SECONDS - start))s"
  echo "ok: $(grep '^splitstep: error: ' <<<"$output")"
}

# descendants PID: every process below PID (mpirun below a timeout, ranks below mpirun).
descendants() {
  local p
  for p in $(pgrep -P "$1"); do
    echo "$p"
    descendants "$p"
  done
}

# alive PID: the process is there and not a zombie. Its state is read once: a process that exits
# between a check of /proc and the read is gone, not alive.
alive() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) && [ -n "$state" ] && [ "$state" != Z ]
}

# outlived PID: the process is still alive a second after its job ended (mpirun may return just
# before the kernel has finished a rank it ended).
outlived() {
  local _
  for _ in $(seq 10); do alive "$1" || return 1; sleep 0.1; done
  alive "$1"
}

# rank_pid ROOT RANK: the process of MPI rank RANK below ROOT (splitstep itself, not a shell).
rank_pid() {
  local p
  for p in $(descendants "$1"); do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = splitstep ] || continue
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

# end_job PID: ends a job started in the background and every process below it, stopped or not.
end_job() {
  local p
  for p in $(descendants "$1") "$1"; do
    kill -CONT "$p" 2>/dev/null
    kill -KILL "$p" 2>/dev/null
  done
}

# A sweep whose cases last at least a second each (the stopping rule's --min-time), so that a
# test can act on a case in progress once two are in the JSON. --device cpu brings the CPU
# preset's 5% noise target, which a quiet case meets before --min-time: a target no CPU case
# meets keeps every case sampling for its second.
SLOW_SWEEP=(allreduce --device cpu --bytes 8,1K,64K,1M,4M,16M --min-time 1s --max-time 2s --warmup 1
  --max-noise 0.01%)

# wait_for_cases JSON N SECONDS [PID]: until the results file (rewritten after every case) holds
# N cases; fails after SECONDS, or as soon as the job PID has ended.
wait_for_cases() {
  local until=$((SECONDS + $3))
  while [ "$SECONDS" -lt "$until" ]; do
    [ "$(json_cases "$1")" -ge "$2" ] && return 0
    [ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null && return 1
    sleep 0.1
  done
  return 1
}

# json_cases JSON: how many cases the results file holds (0 while it is not there).
json_cases() {
  python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["cases"]))' "$1" \
    2>/dev/null || echo 0
}

# check_partial_json JSON RANKS MIN_CASES PATTERN: a run that ended early left a valid file
# marked incomplete, whose reason matches PATTERN (a Python regex), holding at least MIN_CASES
# cases, each measured on every rank.
check_partial_json() {
  python3 - "$@" <<'PY' || fail "partial JSON"
import json, re, sys
path, ranks, minimum, pattern = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
doc = json.load(open(path))
assert doc["complete"] is False, doc["complete"]
assert re.search(pattern, doc["ended"] or ""), (pattern, doc["ended"])
cases = doc["cases"]
assert len(cases) >= minimum, len(cases)
for c in cases:
    assert c["skipped"] or len(c["ranks"]) == ranks, c["case"]
print("json ok: %d cases kept; ended: %s" % (len(cases), doc["ended"]))
PY
}
