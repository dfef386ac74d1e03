#!/usr/bin/env bash
# Each output is written durably (seen with strace): the temporary file is flushed to the disk
# (fsync) before it is renamed over the output, and the directory after, so that a crash or
# power loss leaves the old file or the new one, never an empty one. Skips (status 77) where
# strace is missing or may not trace.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/out"
if ! command -v strace >/dev/null || ! strace -qq -o /dev/null true 2>/dev/null; then
  echo "SKIP: strace cannot trace here"
  exit 77
fi
# shellcheck disable=SC2086
output=$(timeout 90 strace -f -qq -y --seccomp-bpf -e trace=fsync,rename -o "$dir/syscalls" \
  "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" --device cpu allreduce \
  --bytes 8,1K --samples 3 --warmup 1 --json "$dir/out/r.json" --csv "$dir/out/r.csv" \
  --trace "$dir/out/t.json" 2>&1) || fail "the run exited non-zero"
python3 - "$dir/syscalls" "$dir/out" <<'PY' || fail "not written durably"
import re, sys
syscalls, out = sys.argv[1], sys.argv[2]
synced = {}   # pid -> paths flushed since that process's last rename
pending = {}  # pid -> the directory a rename still waits to have flushed
renames = 0
for line in open(syscalls):
    m = re.match(r"(\d+)\s+fsync\(\d+<([^>]*)>\)\s+= 0", line)
    if m:
        pid, path = m.groups()
        synced.setdefault(pid, set()).add(path)
        if pending.get(pid) == path:
            del pending[pid]
        continue
    m = re.match(r'(\d+)\s+rename\("([^"]*)", "([^"]*)"\)\s+= 0', line)
    if m and m.group(3).startswith(out + "/"):
        pid, source, target = m.groups()
        assert pid not in pending, "%s renamed before %s was flushed" % (target, pending[pid])
        assert source in synced.get(pid, set()), "%s renamed before it was flushed" % source
        synced[pid] = set()
        pending[pid] = out
        renames += 1
assert not pending, "the last rename's directory was not flushed: %s" % pending
assert renames >= 3, "only %d outputs renamed" % renames
print("ok: %d renames, each after its file's fsync and followed by the directory's" % renames)
PY
