#!/usr/bin/env bash
# Collectives within groups of ranks (--groups, --group-mode) on N CPU ranks: every group's case
# is measured by the group's ranks alone and checked correct, groups run one at a time or
# together, a group with a deliberately slowed rank is flagged (4 ranks), and groups the launch
# cannot form are refused with status 2 on every rank.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3 config=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# run NAME ARGS...: splitstep allreduce on the CPU preset, its JSON in $dir/NAME.json.
run() {
  local name=$1
  shift
  # shellcheck disable=SC2086
  output=$(timeout 150 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" allreduce \
    --config "$config" --bytes 64K --warmup 1 --json "$dir/$name.json" "$@" 2>&1) \
    || fail "splitstep $* exited non-zero"
}

# check NAME MODE ROUNDS GROUP...: the JSON holds one checked case per group, measured by its
# ranks; with ROUNDS 1, every group ran at the same time.
check() {
  python3 - "$dir/$1.json" "$2" "$3" "${@:4}" <<'PY' || fail "JSON of $1"
import json, sys
doc = json.load(open(sys.argv[1]))
mode, rounds, groups = sys.argv[2], int(sys.argv[3]), sys.argv[4:]
cases = {",".join(map(str, c["fields"]["group"])): c for c in doc["cases"] if "group" in c["fields"]}
assert sorted(cases) == sorted(groups), (sorted(cases), groups)
for group, c in cases.items():
    members = [int(r) for r in group.split(",")]
    assert not c["skipped"], group
    assert c["fields"]["group_mode"] == mode, c["fields"]
    assert c["case"] == f"mpi fp32 64 KiB group {group}", c["case"]
    assert [r["rank"] for r in c["ranks"]] == members, (group, [r["rank"] for r in c["ranks"]])
    assert c["check"]["wrong"] == 0 and c["check"]["checked"] > 0, (group, c["check"])
    n = len(members)
    factor = 2 * (n - 1) / n
    assert abs(c["rates"]["busbw GB/s"] - c["rates"]["algbw GB/s"] * factor) < 1e-9 * c["rates"]["busbw GB/s"], c["rates"]
    # Ranks of one group agreed on loops and samples.
    assert len({(r["loops"], len(r["values"])) for r in c["ranks"]}) == 1, group
figures = {f["tag"] for d in doc["derived"] for f in d["figures"]}
for group in groups:
    assert f"groups/busbw/allreduce/mpi/fp32/out-of-place/65536/{group}" in figures, (group, figures)
if rounds == 1:
    # Groups timed together made the same decisions: the same loops and sample count.
    assert len({(r["loops"], len(r["values"])) for c in cases.values() for r in c["ranks"]}) == 1
print(f"json ok: {len(cases)} groups, {mode}")
PY
}

if [ "$ranks" -eq 2 ]; then
  pairs=(0,1) twos=(0,1) list_arg="0,1" list=(0,1)
else
  pairs=(0,1 2,3 0,3 1,2 0,2 1,3) twos=(0,1 2,3) list_arg="0,1,2;1,3" list=(0,1,2 1,3)
fi

run pairs --groups pairs --samples 3
check pairs sequential "${#pairs[@]}" "${pairs[@]}"
grep -Eq '^allreduce mpi fp32 64 KiB: bus bandwidth by group of ranks' <<<"$output" \
  || fail "no per-group busbw section"

run twos --groups size:2 --group-mode concurrent --samples 3
check twos concurrent 1 "${twos[@]}"

run list --groups "$list_arg" --group-mode concurrent --samples 3
# 4 ranks: the two groups share rank 1, so they take turns.
check list concurrent "${#list[@]}" "${list[@]}"

if [ "$ranks" -ge 4 ]; then
  # Rank 3 waits 30 ms in every call: the pairs it is in are far below the median pair. Four
  # ranks on two cores take turns on them, which can cost an unslowed pair a few ms per call: a
  # wait of 2 ms was once within that noise, and a pair without rank 3 fell below the median.
  run slow --groups pairs --test-slow-rank 3 --test-slow-ms 30 --samples 5
  python3 - "$dir/slow.json" <<'PY' || fail "the slowed groups were not flagged"
import json, re, sys
doc = json.load(open(sys.argv[1]))
(derived,) = [d for d in doc["derived"] if d["subject"] == "mpi fp32 64 KiB"]
flagged = sorted(f["name"] for f in derived["figures"] if f["note"].endswith("far below"))
assert flagged == ["group 0,3", "group 1,3", "group 2,3"], flagged
assert any(s.startswith("rank 3 (") and "is in every flagged group" in s for s in derived["findings"]), derived["findings"]
link = re.compile(r"group 2,3 reaches [0-9]+% of the median group.s busbw at 64 KiB: check the link "
                  r"between rank 2 \(.*\) and rank 3 \(.*\)$")
assert any(link.match(s) for s in derived["findings"]), derived["findings"]
print("flagged:", flagged)
PY
  # On screen, wrapped to the console's width.
  grep -Eq '^    group [0-9],3 reaches [0-9]+% of the median group.s busbw at 64 KiB: check the link' <<<"$output" \
    || fail "no finding naming the link of a slowed pair on screen"
fi

# Groups this launch cannot form: one line, status 2, on every rank.
output=$(mpirun_each_rank "$mpiexec" "$ranks" "$binary" allreduce --device cpu --groups size:3 2>&1)
[ "$(grep -c 'status=2$' <<<"$output")" -eq "$ranks" ] || fail "not every rank exited with status 2"
[ "$(grep -c "^splitstep: error: --groups size:3: $ranks ranks do not split into groups of 3$" <<<"$output")" -eq 1 ] \
  || fail "the refusal was not printed once"
echo "ok: groups on $ranks ranks"
