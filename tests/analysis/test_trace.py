"""splitstep-analysis trace on a synthetic trace shaped as splitstep --trace writes it, and on a
committed compressed one."""
import gzip
import json
import os
import tempfile
import unittest

from splitstep_analysis import trace as trace_view
from support import PNG, ROOT, run_command

CASE = "step mlp bf16 overlap"


def step_trace(ranks=2, steps=4):
    """Per rank: a case on the host, `steps` samples of 50 ms with a forward and a backward
    phase, a bucket per step on the communication stream, and SM clock, power and power-cap
    counters every 20 ms."""
    events = []
    for pid in range(ranks):
        events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "ts": 0,
                       "args": {"name": f"rank {pid} node cuda:{pid} NVIDIA H200"}})
        for tid, track in enumerate(("host", "working stream", "communication stream"), 1):
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "ts": 0,
                           "args": {"name": track}})
        events.append({"ph": "X", "name": CASE, "cat": "case", "pid": pid, "tid": 1, "ts": 0,
                       "dur": 60000 * steps, "args": {"case": CASE}})
        for s in range(steps):
            t = 1000 + 60000 * s
            events.append({"ph": "X", "name": CASE, "cat": "sample", "pid": pid, "tid": 2,
                           "ts": t, "dur": 50000, "args": {"case": CASE}})
            events.append({"ph": "X", "name": "forward", "cat": "phase", "pid": pid, "tid": 2,
                           "ts": t, "dur": 15000, "args": {"case": CASE}})
            events.append({"ph": "X", "name": "backward", "cat": "phase", "pid": pid, "tid": 2,
                           "ts": t + 15000, "dur": 30000, "args": {"case": CASE}})
            events.append({"ph": "X", "name": "allreduce bucket 0 (25 MiB)",
                           "cat": "collective", "pid": pid, "tid": 3, "ts": t + 30000,
                           "dur": 10000, "args": {"case": CASE}})
        for i in range(steps * 3):
            ts = 20000 * i
            events.append({"ph": "C", "name": "SM clock (MHz)", "pid": pid, "tid": 0, "ts": ts,
                           "args": {"value": 1500 + 10 * (i % 3)}})
            events.append({"ph": "C", "name": "power (W)", "pid": pid, "tid": 0, "ts": ts,
                           "args": {"value": 690}})
            events.append({"ph": "C", "name": "clock limited by", "pid": pid, "tid": 0,
                           "ts": ts, "args": {"power cap": i % 2}})
    return {"traceEvents": events, "displayTimeUnit": "ms", "otherData": {}}


class TraceViewTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.trace = os.path.join(self.dir.name, "trace.json")
        with open(self.trace, "w") as f:
            json.dump(step_trace(), f)

    def tearDown(self):
        self.dir.cleanup()

    def run_view(self, *args, process=False):
        return run_command("trace", self.trace, *args, process=process)

    def test_reads_processes_tracks_and_counters(self):
        processes, by_track, counters = trace_view.read_trace(self.trace)
        self.assertEqual(processes, {0: "rank 0 node cuda:0 NVIDIA H200",
                                     1: "rank 1 node cuda:1 NVIDIA H200"})
        self.assertEqual(set(by_track[1]), {"host", "working stream", "communication stream"})
        self.assertEqual(len(by_track[0]["working stream"]), 12)  # 4 samples, 8 phases
        self.assertEqual(len(counters[0]["SM clock (MHz)"]), 12)

    def test_nested_spans_stack_in_lanes(self):
        _, by_track, _ = trace_view.read_trace(self.trace)
        depths = {(s["name"], s["ts"]): d
                  for s, d in trace_view.lanes(by_track[0]["working stream"])}
        self.assertEqual(depths[(CASE, 1000)], 0)
        self.assertEqual(depths[("forward", 1000)], 1)
        self.assertEqual(depths[("backward", 16000)], 1)  # after forward ends: the same lane

    def test_writes_a_png_of_the_whole_trace_and_of_a_case(self):
        whole = os.path.join(self.dir.name, "whole.png")
        result = self.run_view("-o", whole, process=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), whole)
        with open(whole, "rb") as f:
            self.assertEqual(f.read(8), PNG)
        self.assertEqual(trace_view.window_of_case(trace_view.read_trace(self.trace)[1],
                                                   CASE, 2), (1000 - 2200, 111000 + 2200))
        svg = os.path.join(self.dir.name, "two-steps.svg")
        result = self.run_view("-o", svg, "--case", CASE, "--steps", "2")
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(svg) as f:
            self.assertIn("<svg", f.read(2000))

    def test_the_counters_axes_start_at_zero(self):
        figure = trace_view.draw(*trace_view.read_trace(self.trace))
        counters = [axes for axes in figure.axes if axes.get_ylabel() in
                    ("SM clock (MHz)", "power (W)")]
        self.assertEqual(sorted(axes.get_ylabel() for axes in counters),
                         ["SM clock (MHz)", "SM clock (MHz)", "power (W)", "power (W)"])
        for axes in counters:
            low, high = axes.get_ylim()
            self.assertEqual(low, 0)
            self.assertGreater(high, max(max(line.get_ydata()) for line in axes.get_lines()))
        trace_view.plt.close(figure)

    def test_a_compressed_trace_reads_as_the_plain_one(self):
        packed = os.path.join(self.dir.name, "trace.json.gz")
        with open(self.trace, "rb") as f, gzip.open(packed, "wb") as out:
            out.write(f.read())
        self.assertEqual(trace_view.read_trace(packed), trace_view.read_trace(self.trace))

    def test_a_committed_trace(self):
        path = os.path.join(ROOT, "results", "2026-12-01-h200x2-cluster", "trace-step.json.gz")
        processes, by_track, _ = trace_view.read_trace(path)
        self.assertEqual(len(processes), 2)  # two ranks
        self.assertIn("working stream", by_track[min(by_track)])
        out = os.path.join(self.dir.name, "committed.png")
        result = run_command("trace", path, "-o", out, "--from", "0", "--to", "200")
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(8), PNG)

    def test_bad_input_exits_2_with_one_line(self):
        other = os.path.join(self.dir.name, "results.json")
        with open(other, "w") as f:
            json.dump({"schema": "splitstep.results/1", "cases": []}, f)
        for args, message in (
                ([other, "-o", os.path.join(self.dir.name, "x.png")], "not a Chrome trace"),
                ([self.trace, "-o", os.path.join(self.dir.name, "x.png"), "--case", "nope"],
                 "no samples of case 'nope'"),
                ([self.trace, "-o", os.path.join(self.dir.name, "x.gif")], "extension"),
                ([self.trace, "-o", os.path.join(self.dir.name, "x.png"), "--from", "5",
                  "--to", "1"], "the window is empty"),
                ([os.path.join(self.dir.name, "none.json"), "-o",
                  os.path.join(self.dir.name, "x.png")], "cannot read")):
            result = run_command("trace", *args)
            self.assertEqual(result.returncode, 2, args)
            self.assertIn(message, result.stderr)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)


if __name__ == "__main__":
    unittest.main()
