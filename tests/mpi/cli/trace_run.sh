#!/usr/bin/env bash
# --trace and --csv end to end on N CPU ranks: one trace with a process per rank, spans on the
# host, working-stream and communication-stream tracks (the step's gradient buckets), each
# sample inside its case and each phase inside its sample; one CSV row per case and rank; and
# the note that CPU ranks have no telemetry to read.
set -u
source "$(dirname "$0")/common.sh"
mpiexec=$1 ranks=$2 binary=$3 config=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# shellcheck disable=SC2086
output=$(timeout 150 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} "$binary" \
  matmul allreduce step --config "$config" --matmul-sizes 64 --matmul-dtypes fp32 --bytes 1K \
  --step-models mlp --sync-modes none,overlap --samples 3 --warmup 1 \
  --trace "$dir/trace.json" --csv "$dir/rows.csv" 2>&1) || fail "splitstep exited non-zero"
grep -q "^trace written to $dir/trace.json (ranks on rank 0's clock within " <<<"$output" \
  || fail "no trace line"
grep -q "^rows written to $dir/rows.csv$" <<<"$output" || fail "no CSV line"
grep -q '^  note: telemetry: nothing to read (a CPU rank has no GPU to sample)$' <<<"$output" \
  || fail "no note that CPU ranks have no telemetry"
ls "$dir" | grep -q tmp && fail "temporary file left behind"

python3 - "$dir/trace.json" "$dir/rows.csv" "$ranks" <<'PY' || fail "trace or CSV content"
import csv, json, sys
trace = json.load(open(sys.argv[1]))
ranks = int(sys.argv[3])
events = trace["traceEvents"]
for e in events:
    assert all(k in e for k in ("ph", "ts", "pid", "tid", "name")), e
    assert e["ts"] >= 0, e
    if e["ph"] == "X":
        assert e["dur"] >= 0, e
names = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
assert sorted(names) == list(range(ranks)), names
for pid, name in names.items():
    assert name.startswith(f"rank {pid} ") and name.split()[3] == "cpu", name
threads = {(e["pid"], e["args"]["name"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
spans = [e for e in events if e["ph"] == "X"]
for pid in range(ranks):
    for track in ("host", "working stream", "communication stream"):
        assert (pid, track) in threads, (pid, track)
    mine = [e for e in spans if e["pid"] == pid]
    cats = {e["cat"] for e in mine}
    assert {"case", "measure", "sample", "phase", "collective", "check"} <= cats, (pid, cats)
    buckets = [e for e in mine if e["cat"] == "collective"]
    assert buckets and all(e["name"].startswith("allreduce bucket ") for e in buckets), buckets[:2]
    assert all(e["args"]["case"] == "step mlp fp32 overlap" for e in buckets), buckets[:2]
    # Every sample lies within its case's span on the host; every phase within a sample.
    cases = {e["name"]: e for e in mine if e["cat"] == "case"}
    assert {"matmul fp32 n=64", "allreduce mpi fp32 1 KiB", "step mlp fp32 none",
            "step mlp fp32 overlap"} <= set(cases), sorted(cases)
    samples = [e for e in mine if e["cat"] == "sample"]
    assert len([s for s in samples if s["args"]["case"] == "step mlp fp32 none"]) == 3
    slack = 1.0  # microseconds of rounding
    for s in samples:
        c = cases[s["args"]["case"]]
        assert c["ts"] - slack <= s["ts"] and s["ts"] + s["dur"] <= c["ts"] + c["dur"] + slack, (s, c)
    for p in (e for e in mine if e["cat"] == "phase"):
        assert any(s["ts"] - slack <= p["ts"] and p["ts"] + p["dur"] <= s["ts"] + s["dur"] + slack
                   for s in samples), p
alignment = trace["otherData"]["clock_alignment"]
assert [a["rank"] for a in alignment] == list(range(ranks)), alignment
# One host: the true offset is 0, within each measurement's uncertainty.
assert all(abs(a["offset_s"]) <= a["uncertainty_s"] + 1e-9 for a in alignment), alignment

rows = list(csv.DictReader(open(sys.argv[2])))
measured = [r for r in rows if r["skipped"] == "false"]
per_case = {}
for r in measured:
    per_case.setdefault((r["suite"], r["case"], r["series"]), set()).add(int(r["rank"]))
for key, got in per_case.items():
    expected = {0} if key[1].endswith(" single") else set(range(ranks))
    assert got == expected, (key, got)
mm = next(r for r in measured if r["suite"] == "matmul")
assert float(mm["TFLOP/s"]) > 0 and mm["family"] == "matmul" and mm["dtype"] == "fp32", mm
ar = next(r for r in measured if r["suite"] == "allreduce")
assert int(ar["checked"]) > 0 and ar["wrong"] == "0" and float(ar["algbw GB/s"]) > 0, ar
assert all(r["telemetry_readings"] == "" for r in rows)  # CPUs: nothing to read
print("trace ok:", len(events), "events;", len(measured), "CSV rows")
PY
echo "ok: $ranks ranks"
