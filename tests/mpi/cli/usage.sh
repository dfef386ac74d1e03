#!/usr/bin/env bash
# The manual and the refusals users meet first: a misspelt suite or option names the closest
# valid one, contradictory settings name both, each refused on every rank with status 2 and one
# line; --help answers with status 0 on every rank and prints once; and a run given no --device
# takes the CPU preset where no rank sees a GPU (with a note), and its defaults where one does,
# while --device cpu takes the preset anywhere (with a note of its own).
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

check_refused() {
  local expected=$1
  shift
  output=$(mpirun_each_rank "$mpiexec" "$ranks" "$binary" "$@" 2>&1)
  [ "$(grep -c 'status=2$' <<<"$output")" -eq "$ranks" ] || fail "'$*': not every rank exited 2"
  [ "$(grep -c '^splitstep: error: ' <<<"$output")" -eq 1 ] || fail "'$*': error not printed once"
  grep -qxF "splitstep: error: $expected" <<<"$output" || fail "'$*': not '$expected'"
  echo "ok: $(grep '^splitstep: error: ' <<<"$output")"
}

check_refused "unknown suite 'alreduce' (did you mean 'allreduce'?) (matmul, membw, allreduce, reduce_scatter, allgather, broadcast, alltoall, sendrecv, reduce, gather, scatter, hypercube, step)" alreduce
check_refused "unrecognised option '--max-tme' (did you mean '--max-time'?)" --max-tme 1s
check_refused "--min-time 500.0 ms is longer than --max-time 200.0 ms: every case would stop before it" \
  --min-time 0.5s --max-time 0.2s
check_refused "--min-bytes 1 MiB is larger than --max-bytes 64 KiB: the sweep would be empty" \
  allreduce --min-bytes 1M --max-bytes 64K
printf 'max-tme = 1s\n' >"$dir/typo.ini"
check_refused "$dir/typo.ini: unrecognised option 'max-tme' (did you mean 'max-time'?)" \
  --config "$dir/typo.ini"

output=$(mpirun_each_rank "$mpiexec" "$ranks" "$binary" --help 2>&1)
[ "$(grep -c 'status=0$' <<<"$output")" -eq "$ranks" ] || fail "--help: not every rank exited 0"
[ "$(grep -c '^Exit status:$' <<<"$output")" -eq 1 ] || fail "--help: not printed once"
echo "ok: --help, $(grep -c '' <<<"$output") lines with the ranks' statuses"

# plan_entry JSON KEY: an option's value in the results' plan, typed: a name as it is, anything
# else (a number, true/false, a list) as JSON.
plan_entry() {
  python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))["plan"][sys.argv[2]]
print(v if isinstance(v, str) else json.dumps(v))' "$1" "$2"
}

run_membw() {
  local json=$1
  shift
  output=$(timeout 120 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" membw \
    --membw-bytes 16M --max-time 2s --quiet --json "$json" "$@" 2>&1) || fail "membw $*: exit status $?"
}
note="note: no GPU on any rank: the CPU preset's defaults (configs/cpu-quick.ini) under the options given; --device chooses"
run_membw "$dir/auto.json"
# The command line's --membw-bytes and --max-time win over the preset as over the defaults; the
# preset's --min-time is 0.1 s, the default's 0.5 s.
[ "$(plan_entry "$dir/auto.json" membw-bytes)" = "[16777216]" ] || fail "--membw-bytes not kept"
[ "$(plan_entry "$dir/auto.json" max-time)" = 2.0 ] || fail "--max-time not kept"
if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  grep -qF "$note" <<<"$output" && fail "a GPU node took the CPU preset"
  [ "$(plan_entry "$dir/auto.json" min-time)" = 0.5 ] || fail "a GPU node lost its defaults"
  echo "ok: a GPU node keeps its defaults"
else
  [ "$(grep -cF "$note" <<<"$output")" -eq 1 ] || fail "no GPU: the note not printed once"
  [ "$(plan_entry "$dir/auto.json" device)" = cpu ] || fail "no GPU: not on the CPU"
  [ "$(plan_entry "$dir/auto.json" min-time)" = 0.1 ] || fail "no GPU: not the preset's min-time"
  echo "ok: no GPU: the CPU preset, with the note"
  # A --max-time short of the GPU's --min-time (0.5 s) but not of the preset's (0.1 s) runs: it is
  # judged against the defaults it runs with.
  output=$(timeout 120 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" membw \
    --membw-bytes 16M --max-time 0.3s --quiet --json "$dir/short.json" 2>&1) \
    || fail "no GPU: --max-time 0.3s refused: $output"
  [ "$(plan_entry "$dir/short.json" max-time)" = 0.3 ] || fail "no GPU: --max-time 0.3s not kept"
  echo "ok: no GPU: --max-time 0.3s is held to the preset's --min-time"
  # --device auto given is what no --device means.
  run_membw "$dir/auto-given.json" --device auto
  [ "$(grep -cF "$note" <<<"$output")" -eq 1 ] || fail "--device auto, no GPU: the note not printed once"
  [ "$(plan_entry "$dir/auto-given.json" min-time)" = 0.1 ] \
    || fail "--device auto, no GPU: not the preset's min-time"
  echo "ok: no GPU: --device auto given takes the CPU preset too"
fi
# --device cpu, on a GPU node too: the preset's defaults, so that a --max-time short of the GPU's
# --min-time runs; from the config file as from the command line.
cpu_note="note: --device cpu: the CPU preset's defaults (configs/cpu-quick.ini) under the options given"
output=$(timeout 120 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" membw \
  --membw-bytes 16M --device cpu --max-time 0.3s --quiet --json "$dir/cpu.json" 2>&1) \
  || fail "--device cpu --max-time 0.3s refused: $output"
[ "$(grep -cF "$cpu_note" <<<"$output")" -eq 1 ] || fail "--device cpu: its note not printed once"
grep -qF "$note" <<<"$output" && fail "--device cpu: the note of a run without a GPU"
[ "$(plan_entry "$dir/cpu.json" device)" = cpu ] || fail "--device cpu: not on the CPU"
[ "$(plan_entry "$dir/cpu.json" min-time)" = 0.1 ] || fail "--device cpu: not the preset's min-time"
[ "$(plan_entry "$dir/cpu.json" max-time)" = 0.3 ] || fail "--device cpu: --max-time 0.3s not kept"
echo "ok: --device cpu: the CPU preset, with its note; --max-time 0.3s runs"
printf 'device = cpu\n' >"$dir/cpu.ini"
run_membw "$dir/cpu-file.json" --config "$dir/cpu.ini"
[ "$(grep -cF "$cpu_note" <<<"$output")" -eq 1 ] || fail "device = cpu: its note not printed once"
[ "$(plan_entry "$dir/cpu-file.json" min-time)" = 0.1 ] || fail "device = cpu: not the preset's min-time"
echo "ok: device = cpu in the config file: the CPU preset"
