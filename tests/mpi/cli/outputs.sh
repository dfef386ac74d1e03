#!/usr/bin/env bash
# Outputs that protect what they replace: a results path replaces only a file splitstep wrote
# (unless --overwrite), never an input or another output, is never empty, and is written by one
# run at a time; --torch-profile's directory is checked at start. Each refusal: one line, every
# rank exits 2, and nothing is written.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
dir=$(mktemp -d)
job=
trap '[ -n "$job" ] && end_job "$job"; rm -rf "$dir"' EXIT
quick=(allreduce --bytes 8 --samples 3 --warmup 1)

# unchanged FILE COPY: the refused runs left FILE as it was, and wrote nothing in $dir.
unchanged() {
  cmp -s "$1" "$2" || fail "$1 was changed"
  [ -z "$(find "$dir" -mindepth 1 -newer "$dir/.stamp")" ] || fail "written: $(find "$dir" -mindepth 1 -newer "$dir/.stamp")"
}

cp "$binary" "$dir/splitstep" && cp "$binary" "$dir/splitstep.orig"
printf '# Notes\nkeep these\n' >"$dir/README" && cp "$dir/README" "$dir/README.orig"
printf 'bytes = 8\nsamples = 3\n' >"$dir/run.ini" && cp "$dir/run.ini" "$dir/run.ini.orig"
sleep 1 # find -newer compares modification times
touch "$dir/.stamp"
sleep 1

refused "--json: '$dir/splitstep' holds something other than splitstep's results: pass --overwrite to replace it" \
  "${quick[@]}" --json "$dir/splitstep"
unchanged "$dir/splitstep" "$dir/splitstep.orig"
refused "--csv: '$dir/README' holds something other than splitstep's CSV: pass --overwrite" \
  "${quick[@]}" --csv "$dir/README"
unchanged "$dir/README" "$dir/README.orig"
refused "--json: '$dir/run.ini' is the --config file, which the run reads (it would be replaced)" \
  allreduce --config "$dir/run.ini" --json "$dir/run.ini" --overwrite
refused "--json: '$dir/./run.ini' is the --config file" allreduce --config "$dir/run.ini" --json "$dir/./run.ini"
unchanged "$dir/run.ini" "$dir/run.ini.orig"
refused "--csv: '$dir/r.out' is also the --json file: each output needs a file of its own" \
  "${quick[@]}" --json "$dir/r.out" --csv "$dir/r.out"
refused "--trace: '$dir/sub/../r.out' is also the --json file" \
  "${quick[@]}" --json "$dir/r.out" --trace "$dir/sub/../r.out"
for option in --json --csv --trace --torch-profile; do
  refused "$option: the path is empty (leave the option out to write none)" "${quick[@]}" "$option" ""
done
refused "--torch-profile: '$dir/README/profiles' is under '$dir/README', which is not a directory" \
  step --torch-profile "$dir/README/profiles"
unchanged "$dir/README" "$dir/README.orig"

# What splitstep wrote, it replaces; --overwrite replaces the rest.
run_ok() {
  # shellcheck disable=SC2086
  output=$(timeout 60 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" --device cpu \
    "${quick[@]}" "$@" 2>&1) || fail "'$*' exited non-zero"
}
run_ok --json "$dir/r.json" --csv "$dir/r.csv" --trace "$dir/t.json"
run_ok --json "$dir/r.json" --csv "$dir/r.csv" --trace "$dir/t.json"
[ ! -e "$dir/r.json.lock" ] || fail "a finished run left its lock file"
echo "ok: a second run replaced the first one's results, rows and trace"
refused "--json: '$dir/t.json' holds something other than splitstep's results" "${quick[@]}" --json "$dir/t.json"
run_ok --json "$dir/README" --overwrite
[ "$(json_cases "$dir/README")" -eq 1 ] || fail "--overwrite did not write the results"
echo "ok: --overwrite replaced a file splitstep had not written"

# Two jobs on one path: the second is refused at start, naming the first.
# shellcheck disable=SC2086
timeout 90 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" "${SLOW_SWEEP[@]}" \
  --json "$dir/slow.json" >"$dir/slow.out" 2>&1 &
job=$!
wait_for_cases "$dir/slow.json" 1 60 "$job" || fail "no case within 60 s: $(tail -5 "$dir/slow.out")"
first=$(rank_pid "$job" 0) || fail "no process of rank 0"
cp "$dir/slow.json" "$dir/slow.before"
refused "--json: '$dir/slow.json' is being written by another run (pid $first on $(hostname)" \
  "${quick[@]}" --json "$dir/slow.json"
# The first job's lock dies with it: the next run takes the path.
end_job "$job"
wait "$job" 2>/dev/null
job=
run_ok --json "$dir/slow.json"
[ "$(json_cases "$dir/slow.json")" -eq 1 ] || fail "the run after a killed one did not write"
grep -q "took over '$dir/slow.json.lock', left by pid $first on $(hostname)" "$dir/slow.json" \
  || fail "the run after a killed one did not name the lock it took over"
echo "ok: the lock of a killed job was given back by the kernel, and its taker names it"
