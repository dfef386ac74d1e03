#!/usr/bin/env bash
# NCCL's algorithm per size beside busbw, on as many GPUs as ranks: every NCCL allreduce case of
# the JSON carries nccl_algorithm, nccl_protocol and nccl_channels as NCCL names them, the
# console shows them in the "nccl" column after busbw, and --nccl-algorithms off leaves both
# out. Skips (status 77) where fewer GPUs than ranks are visible.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "$gpus" -lt "$ranks" ]; then
  echo "SKIP: $ranks ranks need $ranks GPUs, $gpus visible"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() {
  # shellcheck disable=SC2086
  timeout 300 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" allreduce \
    --bytes 8,64K,1M,64M --samples 5 --warmup 2 --backend nccl "$@" 2>&1
}
output=$(run --nccl-algorithms on --json "$dir/on.json") || fail "the run exited non-zero"
grep -qE '^  case +size \(B\) +count +type +time \(us\) +algbw GB/s +busbw GB/s +nccl ' \
  <<<"$output" || fail "no nccl column after busbw"
rows=$(grep -cE '^  nccl out +[0-9]+ .* (ring|tree|nvls|nvls_tree|collnet_direct|collnet_chain|pat)/(ll|ll128|simple) ' <<<"$output")
[ "$rows" -eq 4 ] || fail "$rows of 4 rows show an algorithm/protocol"
python3 - "$dir/on.json" <<'PY' || fail "the JSON's cases lack NCCL's choice"
import json, sys
cases = [c for c in json.load(open(sys.argv[1]))["cases"] if c["fields"].get("backend") == "nccl"]
assert len(cases) == 4, len(cases)
for c in cases:
    f = c["fields"]
    assert f.get("nccl_algorithm") in {"RING", "TREE", "NVLS", "NVLS_TREE", "COLLNET_DIRECT",
                                       "COLLNET_CHAIN", "PAT"}, f
    assert f.get("nccl_protocol") in {"LL", "LL128", "SIMPLE"}, f
    assert isinstance(f.get("nccl_channels"), int) and f["nccl_channels"] >= 1, f
    print(f["size"], f["nccl_algorithm"], f["nccl_protocol"], f["nccl_channels"])
PY
output=$(run --nccl-algorithms off --json "$dir/off.json") || fail "the run with off exited non-zero"
grep -qE 'busbw GB/s +nccl ' <<<"$output" && fail "a nccl column with --nccl-algorithms off"
grep -q '"nccl_algorithm": "' "$dir/off.json" && fail "a case field with --nccl-algorithms off"
echo "ok: NCCL's choice on each of 4 sizes on $ranks GPUs, none with the option off"
