#!/usr/bin/env bash
# Outputs that no planted link can redirect: once a run has started, symbolic links to a victim
# file at the names another user could guess (each output's PATH.tmp.<pid> for every process of
# the job, and each output not written yet) leave the victim as it was, and every output a
# regular file of its own. A lock file that is a second name of the victim (a hard link), or a
# symbolic link, is refused at start: one line, every rank exits 2, and the victim is unchanged.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
dir=$(mktemp -d)
job=
trap '[ -n "$job" ] && end_job "$job"; rm -rf "$dir"' EXIT

printf 'victim: a file of another user\nkeep these bytes\n' >"$dir/victim"
cp "$dir/victim" "$dir/victim.orig"

# victim_unchanged: the victim holds, byte for byte, what it held before the runs.
victim_unchanged() {
  cmp -s "$dir/victim" "$dir/victim.orig" || fail "the victim was written through a link"
}

# wait_for_files SECONDS PID FILE...: until every FILE exists; fails after SECONDS, or as soon
# as the job PID has ended.
wait_for_files() {
  local until=$((SECONDS + $1)) pid=$2 file missing
  shift 2
  while [ "$SECONDS" -lt "$until" ]; do
    missing=
    for file in "$@"; do
      [ -e "$file" ] || missing=$file
    done
    [ -z "$missing" ] && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# A membw run of a few seconds (two cases of 1-2 s each) writing all four outputs.
mkdir "$dir/out"
json=$dir/out/r.json csv=$dir/out/r.csv metrics=$dir/out/m.prom trace=$dir/out/t.json
mpirun_each_rank "$mpiexec" "$ranks" "$binary" --device cpu membw --membw-bytes 16M \
  --min-time 1s --max-time 2s --json "$json" --csv "$csv" --metrics "$metrics" \
  --trace "$trace" >"$dir/job.out" 2>&1 &
job=$!
wait_for_files 30 "$job" "$json.lock" "$csv.lock" "$metrics.lock" "$trace.lock" \
  || fail "no lock files within 30 s: $(tail -5 "$dir/job.out")"

# Every process of the job that is splitstep itself (not mpirun, timeout or a rank's shell).
pids=()
for p in $(descendants "$job"); do
  [ "$(cat "/proc/$p/comm" 2>/dev/null)" = splitstep ] && pids+=("$p")
done
[ "${#pids[@]}" -eq "$ranks" ] || fail "found ${#pids[@]} splitstep processes, not $ranks"
links=0 at_output=()
for out in "$json" "$csv" "$metrics" "$trace"; do
  for p in "${pids[@]}"; do
    ln -s "$dir/victim" "$out.tmp.$p" || fail "cannot plant $out.tmp.$p"
    links=$((links + 1))
  done
  # The run may write the output between the test and the link: then there is none to plant.
  if [ ! -e "$out" ] && [ ! -L "$out" ] && ln -s "$dir/victim" "$out" 2>/dev/null; then
    at_output+=("$(basename "$out")")
  fi
done
[ "${#at_output[@]}" -ge 1 ] || fail "every output was written before a link could be planted"
kill -0 "$job" 2>/dev/null || fail "the run ended before the links were planted"
echo "planted: $links links at PATH.tmp.<pid>, and at ${at_output[*]}"

wait "$job"
rc=$?
job=
output=$(cat "$dir/job.out")
[ "$rc" -eq 0 ] || fail "the job exited $rc"
[ "$(grep -c 'status=0$' <<<"$output")" -eq "$ranks" ] || fail "not every rank exited 0"
victim_unchanged
for out in "$json" "$csv" "$metrics" "$trace"; do
  if [ ! -f "$out" ] || [ -L "$out" ]; then fail "$out is not a regular file"; fi
  [ ! -e "$out.lock" ] || fail "the run left $out.lock"
done
python3 - "$json" "$trace" <<'PY' || fail "the results or the trace do not parse"
import json, sys
results, trace = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert results["cases"], "no cases"
assert trace["traceEvents"], "no events"
PY
head -1 "$csv" | grep -q '^suite,family,case,series,' || fail "$csv has no header line"
grep -q '^# \(HELP\|TYPE\) ' "$metrics" || fail "$metrics has no # HELP or # TYPE line"
left=$(find "$dir/out" -name '*.tmp.*' ! -type l)
[ -z "$left" ] || fail "temporaries left behind: $left"
echo "ok: victim unchanged; results, CSV, metrics and trace written as regular files"

# A lock file that is a hard link to the victim, or a symbolic link to it: refused at start.
mkdir "$dir/hard" "$dir/soft"
quick=(allreduce --bytes 8 --samples 3 --warmup 1)
ln "$dir/victim" "$dir/hard/r.json.lock"
refused "--json: '$dir/hard/r.json' cannot be locked: '$dir/hard/r.json.lock' is a hard link to another file: remove it or write elsewhere" \
  "${quick[@]}" --json "$dir/hard/r.json"
victim_unchanged
[ ! -e "$dir/hard/r.json" ] || fail "a refused run wrote $dir/hard/r.json"
ln -s "$dir/victim" "$dir/soft/r.json.lock"
refused "--json: '$dir/soft/r.json' cannot be locked: '$dir/soft/r.json.lock' cannot be created: Too many levels of symbolic links" \
  "${quick[@]}" --json "$dir/soft/r.json"
victim_unchanged
[ ! -e "$dir/soft/r.json" ] || fail "a refused run wrote $dir/soft/r.json"
