"""splitstep-analysis plot on synthetic result files, on committed results and on a v2 file."""
import json
import os
import unittest

import matplotlib
import numpy as np

from splitstep_analysis import plot as plots
from splitstep_analysis.plots.common import _keys, size_label
from splitstep_analysis.plots.parity import VERDICT_COLORS
from splitstep_analysis.results import load_cases, load_ranks, load_telemetry, read_results
from support import DATA, PNG, ROOT, FilesTestCase, run_command

REFERENCE = os.path.join(ROOT, "analysis", "reference", "nccl-tests-h200x2.csv")
PHASE_MS = {"data": 0.1, "forward": 10.0, "loss": 0.5, "backward": 20.0, "sync": 3.0,
            "optimizer": 1.5, "comm": 6.0}


def case(suite, name, series, per_rank_values, params, rates=None, part_of=""):
    medians = [float(np.median(v)) for v in per_rank_values]
    return {"suite": suite, "case": name, "series": series, "part_of": part_of, "unit": "s",
            "clock": "device (CUDA events)", "params": params, "notes": [], "warnings": [],
            "skipped": False, "rates": rates or {}, "check": {"checked": 0, "wrong": 0},
            "across_ranks": {"n": len(medians), "min": min(medians),
                             "median": float(np.median(medians)), "max": max(medians)},
            "slowest_rank": int(np.argmax(medians)),
            "ranks": [{"rank": r, "values": list(map(float, v))}
                      for r, v in enumerate(per_rank_values)]}


def samples(median, rank, n=9):
    """n samples around `median`, rank 1 5% slower than rank 0."""
    return median * (1 + 0.05 * rank) * np.linspace(0.98, 1.02, n)


def step_cases():
    cases = []
    for mode in ("none", "overlap", "single"):
        ranks = [0] if mode == "single" else [0, 1]
        params = {"model": "mlp", "precision": "bf16", "mode": mode, "batch": "64",
                  "world_size": "2"}
        phases = [p for p in PHASE_MS if mode == "overlap" or p not in ("sync", "comm")]
        for phase in phases:
            cases.append(case("step", f"mlp bf16 {mode}", phase,
                              [samples(PHASE_MS[phase] * 1e-3, r) for r in ranks], params,
                              part_of="step"))
        total = sum(PHASE_MS[p] for p in phases if p != "comm") * 1e-3
        cases.append(case("step", f"mlp bf16 {mode}", "step",
                          [samples(total, r) for r in ranks], params))
    return cases


def with_telemetry(cases):
    """The step cases with telemetry on every rank: the SM clock 1500 MHz in mode none and
    1425 MHz with overlap, 600 W and 690 W, the power cap holding in 40% and 90% of readings
    (none of them in mode none's data phase)."""
    for c in cases:
        if c["suite"] != "step":
            continue
        overlap = c["params"]["mode"] == "overlap"
        for rank in c["ranks"]:
            limits = {"power cap": 0.9 if overlap else 0.4}
            if c["params"]["mode"] == "none" and c["series"] == "data":
                limits = {}
            rank["telemetry"] = {
                "readings": 20, "limit_readings": 20, "clock_limits": limits,
                "sm_clock_mhz": {"n": 20, "min": 1400, "mean": 1425 if overlap else 1500,
                                 "max": 1980},
                "power_w": {"n": 20, "min": 500, "mean": 690 if overlap else 600, "max": 700},
                "power_limit_w": {"n": 20, "min": 700, "mean": 700, "max": 700}}
            rank["clock_at_start"] = {"current_mhz": 1980, "limited_by": "", "max_mhz": 1980}
    return cases


def step_derived():
    figures = [("step/time/single", "s", 0.035), ("step/time/overlap", "s", 0.040),
               ("step/efficiency/overlap", "%", 87.5), ("step/time/none", "s", 0.036)]
    return [{"suite": "step", "subject": "mlp bf16", "title": "where the step time goes",
             "figures": [{"tag": t, "name": t, "unit": u, "value": v, "per_rank": [], "note": ""}
                         for t, u, v in figures], "findings": []}]


def collective_cases(suite="allreduce", busbw=True):
    cases = []
    for size, seconds in ((1024, 10e-6), (1 << 20, 20e-6), (64 << 20, 300e-6)):
        rates = {"algbw GB/s": size / seconds / 1e9}
        if busbw:
            rates["busbw GB/s"] = rates["algbw GB/s"]
        for backend in ("nccl", "mpi"):
            cases.append(case(suite, f"{backend} fp32 {size} B", suite,
                              [samples(seconds, r) for r in (0, 1)],
                              {"backend": backend, "dtype": "fp32", "size": str(size),
                               "bytes": str(size), "placement": "out of place"}, rates))
    return cases


def ledger_cases():
    """The overlap mode's packing and two buckets: ready 4 and 12 ms into backward (20 ms),
    waiting 0.5 and 1 ms, reduced in 3 and 6 ms, so ending at -12.5 and -1 ms."""
    params = {"model": "mlp", "precision": "bf16", "mode": "overlap", "batch": "64",
              "world_size": "2"}
    cases = [case("step", "mlp bf16 overlap", "packing", [samples(0.0, r) for r in (0, 1)],
                  params)]
    for bucket, values in enumerate(({"ready": 4.0, "launch delay": 0.5, "comm": 3.0,
                                      "finish after backward": -12.5},
                                     {"ready": 12.0, "launch delay": 1.0, "comm": 6.0,
                                      "finish after backward": -1.0})):
        for quantity, ms in values.items():
            cases.append(case("step", "mlp bf16 overlap", f"bucket {bucket} {quantity}",
                              [[ms * 1e-3] * 9, [ms * 1e-3] * 9],
                              {**params, "bucket": str(bucket), "bucket_bytes": str(25 << 20),
                               "quantity": quantity}))
    return cases


def matmul_cases():
    cases = []
    for dtype, tflops in (("fp32", 50.0), ("bf16", 700.0)):
        for n in (4096, 8192):
            seconds = 2.0 * n ** 3 / (tflops * 1e12)
            cases.append(case("matmul", f"{dtype} n={n}", "mm",
                              [samples(seconds, r) for r in (0, 1)],
                              {"dtype": dtype, "m": str(n), "n": str(n), "k": str(n)},
                              {"TFLOP/s": tflops}))
    return cases


def membw_cases():
    return [case("membw", "copy 1 GiB", "copy", [samples(5e-4, r) for r in (0, 1)],
                 {"kind": "copy", "bytes": str(1 << 30)}, {"GB/s": 4000.0})]


def document(cases, derived=None, world_size=2):
    return {"schema": "splitstep.results/1", "metadata": {"world_size": world_size},
            "plan": {}, "ranks": [], "cases": cases, "derived": derived or []}


class PlotsTest(FilesTestCase):
    def setUp(self):
        super().setUp()
        self.out = os.path.join(self.dir.name, "out")

    def run_plots(self, *args, process=False):
        return run_command("plot", *args, process=process)

    def written(self):
        return sorted(os.listdir(self.out)) if os.path.isdir(self.out) else []

    def assertPng(self, name):
        path = os.path.join(self.out, name)
        self.assertTrue(os.path.isfile(path), f"{name} not among {self.written()}")
        self.assertGreater(os.path.getsize(path), 1000)
        with open(path, "rb") as f:
            self.assertEqual(f.read(8), PNG, name)

    def test_every_plot_from_a_synthetic_file(self):
        path = self.write("run.json", document(
            with_telemetry(step_cases()) + collective_cases() + collective_cases("allgather") +
            matmul_cases(), step_derived()))
        result = self.run_plots(path, "-o", self.out, "--peak", "bf16=989")
        self.assertEqual(result.returncode, 0, result.stderr)
        expected = ["run-busbw-allgather.png", "run-busbw-allreduce.png",
                    "run-latency-allgather.png", "run-latency-allreduce.png",
                    "run-matmul-tflops.png", "run-step-mlp-bf16.png",
                    "run-telemetry-mlp-bf16.png", "scaling.png"]
        self.assertEqual(self.written(), expected)
        for name in expected:
            self.assertPng(name)
            self.assertIn(os.path.join(self.out, name), result.stdout.splitlines())

    def test_formats(self):
        path = self.write("run.json", document(matmul_cases()))
        result = self.run_plots(path, "-o", self.out, "--format", "png,svg")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.written(), ["run-matmul-tflops.png", "run-matmul-tflops.svg"])
        self.assertPng("run-matmul-tflops.png")
        with open(os.path.join(self.out, "run-matmul-tflops.svg")) as f:
            self.assertIn("<svg", f.read(2000))

    def test_only_the_kinds_a_file_holds(self):
        for name, cases, derived, expected in (
                ("membw", membw_cases(), None, ["membw-membw.png"]),
                ("empty", [], None, []),
                ("one-rank", collective_cases(busbw=False), None, ["one-rank-time-allreduce.png"]),
                ("gemm", matmul_cases() + membw_cases(), None,
                 ["gemm-matmul-tflops.png", "gemm-membw.png"]),
                # Step phases without derived figures: the breakdown, no scaling figure.
                ("phases", step_cases(), None, ["phases-step-mlp-bf16.png"])):
            with self.subTest(name):
                if os.path.isdir(self.out):
                    for old in os.listdir(self.out):
                        os.remove(os.path.join(self.out, old))
                path = self.write(f"{name}.json", document(cases, derived))
                result = self.run_plots(path, "-o", self.out)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertEqual(self.written(), expected)
                self.assertEqual(result.stderr, "")
                if not expected:
                    self.assertIn("no case to plot", result.stdout)

    def test_cases_no_figure_draws_are_named_and_fail(self):
        # A family no figure is made for, and a step series neither the breakdown nor the
        # bucket ledger shows (packing, in a file without buckets).
        with open(os.path.join(DATA, "v2-unknown-collective.json")) as f:
            v2 = json.load(f)
        v2["metadata"]["catalogue"]["families"]["fft"] = {
            "fields": [{"name": "points", "type": "integer"}], "rates": []}
        for points in (1024, 4096, 16384, 65536, 262144, 1 << 20):
            v2["cases"].append({**v2["cases"][-1], "suite": "fft", "family": "fft",
                                "case": f"c2c {points}", "series": "fft",
                                "fields": {"points": points}, "rates": {}})
        fft = self.write("fft.json", v2)
        step = step_cases()
        step.append(case("step", "mlp bf16 overlap", "packing",
                         [samples(1e-4, r) for r in (0, 1)], step[0]["params"], part_of="step"))
        phases = self.write("phases.json", document(step))
        result = self.run_plots(fft, phases, "-o", self.out)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertEqual(self.written(), [
            "fft-busbw-allreduce-tree.png", "fft-busbw-allreduce.png",
            "fft-latency-allreduce-tree.png", "fft-latency-allreduce.png", "fft-matmul-tflops.png",
            "fft-pairs-allreduce-nccl-fp32-out.png", "phases-step-mlp-bf16.png"])
        self.assertEqual(result.stderr.splitlines(), [
            f"splitstep-analysis plot: {fft}: 6 fft cases not plotted: c2c 1024 / fft, "
            "c2c 4096 / fft, c2c 16384 / fft, c2c 65536 / fft and 2 more",
            f"splitstep-analysis plot: {phases}: 1 step case not plotted: "
            "mlp bf16 overlap / packing"])

    def test_committed_results(self):
        step = os.path.join(ROOT, "results", "2026-11-30-h200x2-step", "step-np2-final.json")
        collectives = os.path.join(ROOT, "results", "2026-11-30-h200x2-collectives",
                                   "h200x2-collectives.json")
        result = self.run_plots(step, collectives, "-o", self.out, "--reference", REFERENCE,
                                process=True)  # the command as users run it
        self.assertEqual(result.returncode, 0, result.stderr)
        expected = ["h200x2-collectives-" + figure + "-" + c + ".png"
                    for figure in ("busbw", "latency")
                    for c in ("allgather", "allreduce", "broadcast", "reduce-scatter")] + [
            "scaling.png", "step-np2-final-matmul-tflops.png",
            "step-np2-final-step-mlp-bf16.png", "step-np2-final-step-transformer-bf16.png"]
        self.assertEqual(self.written(), expected)
        for name in expected:
            self.assertPng(name)

    def test_a_budgeted_sweep_shows_where_its_budget_went(self):
        # The 8 B - 4 GiB allreduce sweep under configs/sweep.ini's 3 s budget, as run.
        path = os.path.join(ROOT, "results", "2026-12-06-h100-57e95e1", "v", "time-to-answer",
                            "allreduce-sweep-budget.json")
        result = self.run_plots(path, "-o", self.out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.written(), ["allreduce-sweep-budget-sampling.png",
                                          "allreduce-sweep-budget-time-allreduce.png"])
        self.assertPng("allreduce-sweep-budget-sampling.png")
        document = read_results(path)
        [(name, figure, drew)] = plots.sampling_figures(document)
        self.assertEqual((name, drew), ("sampling", frozenset()))
        top, bottom = figure.axes
        # A bar per case, as tall as its slowest rank's sampling, coloured by what stopped it.
        bars = sorted(top.patches, key=lambda bar: bar.get_x())
        self.assertEqual(len(bars), len(document["cases"]))
        for bar, case in zip(bars, document["cases"]):
            slowest = max(case["ranks"], key=lambda r: r["wall"]["sampling"])
            self.assertAlmostEqual(bar.get_height(), slowest["wall"]["sampling"])
        labels = [text.get_text() for text in top.get_legend().get_texts()]
        rules = {r["stop_rule"] for c in document["cases"] for r in c["ranks"]}
        self.assertEqual(set(labels) - {"budget / cases (3 s / 30)"}, rules)
        self.assertIn("budget / cases (3 s / 30)", labels)
        # Below, the console's ±ci: how far the interval reaches on its wider side, in percent.
        first = document["cases"][0]["ranks"][0]
        median, interval = first["summary"]["median"], first["median_ci"]
        reach = max(interval["high"] - median, median - interval["low"]) / median
        lowest = min(bottom.patches, key=lambda bar: bar.get_x())
        self.assertAlmostEqual(lowest.get_height(), 100 * reach)
        # Without a budget each case samples until its own rule stops it: no such figure.
        document["plan"]["sweep-time"] = 0
        self.assertEqual(plots.sampling_figures(document), [])

    def test_committed_step_and_one_rank_runs_are_plotted_whole(self):
        step = os.path.join(ROOT, "results", "2026-12-01-h200x2-cluster", "default-step.json")
        one = os.path.join(ROOT, "results", "2026-12-01-h200-runs", "default-1.json")
        result = self.run_plots(step, one, "-o", self.out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "")
        for name in ("default-step-step-buckets-mlp-bf16.png", "default-step-step-mlp-bf16.png",
                     "default-1-time-allreduce.png", "default-1-matmul-tflops.png",
                     "default-1-membw.png"):
            self.assertPng(name)

    def test_a_folder_of_results_of_earlier_revisions(self):
        folder = os.path.join(ROOT, "results", "2026-11-30-h200x2-measurement")
        result = self.run_plots(folder, "-o", self.out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("h200x2-all-busbw-allreduce.png", self.written())
        self.assertIn("h200x2-all-membw.png", self.written())
        self.assertIn("h200x2-bf16-run1-matmul-tflops.png", self.written())
        self.assertPng("h200x2-all-matmul-tflops.png")

    def test_a_folder_skips_other_json_files(self):
        folder = os.path.join(self.dir.name, "runs")
        os.makedirs(folder)
        with open(os.path.join(folder, "a.json"), "w") as f:
            json.dump(document(matmul_cases()), f)
        with open(os.path.join(folder, "settings.json"), "w") as f:
            json.dump({"not": "results"}, f)
        result = self.run_plots(folder, "-o", self.out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.written(), ["a-matmul-tflops.png"])
        self.assertIn("skipping", result.stderr)
        self.assertIn("settings.json", result.stderr)

    def test_every_collective_of_a_file_is_plotted(self):
        # The cluster run's new collectives: alltoall, sendrecv, reduce, gather and scatter.
        path = os.path.join(ROOT, "results", "2026-12-01-h200x2-cluster", "new-collectives.json")
        document = read_results(path)
        present = {c["suite"] for c in document["cases"]}
        self.assertEqual(present, {"alltoall", "sendrecv", "reduce", "gather", "scatter"})
        figures = plots.figures_for(document)
        self.assertEqual([plot.name for plot in figures],
                         [f"{figure}-{c}" for figure in ("busbw", "latency")
                          for c in ("alltoall", "sendrecv", "reduce", "gather", "scatter")])
        for plot in figures:
            figure, collective = plot.name.split("-", 1)
            if figure == "busbw":
                self.assertEqual(plot.figure.axes[0].get_title(),
                                 f"{collective} bus bandwidth, 2 ranks")
            self.assertEqual({key[0] for key in plot.drew}, {collective})
        self.assertEqual(plots.not_drawn(document, figures), {})
        plots.plt.close("all")
        result = self.run_plots(path, "-o", self.out, "--busbw-together", "--title", "new ones")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.written(), sorted(
            [f"new-collectives-{figure}-{c}.png" for figure in ("busbw", "latency")
             for c in present] + ["busbw.png"]))
        for name in self.written():
            self.assertPng(name)

    def test_every_figure_is_laid_out_tight_when_it_is_drawn(self):
        # Each figure carries its tight layout as its engine: computed when drawn (saved), not
        # when built, and then its axes fill the canvas instead of matplotlib's default margins.
        path = os.path.join(ROOT, "results", "2026-12-01-h200x2-cluster", "new-collectives.json")
        for plot in plots.figures_for(read_results(path)):
            with self.subTest(plot=plot.name):
                engine = plot.figure.get_layout_engine()
                self.assertIsInstance(engine, matplotlib.layout_engine.TightLayoutEngine)
                plot.figure.canvas.draw()
                left = plot.figure.subplotpars.left
                self.assertLess(left, matplotlib.rcParams["figure.subplot.left"])
        plots.plt.close("all")

    def test_a_collective_of_no_catalogue_is_plotted_by_its_name(self):
        path = os.path.join(DATA, "v2-unknown-collective.json")
        figures = plots.figures_for(read_results(path))
        self.assertEqual([plot.name for plot in figures],
                         ["busbw-allreduce", "busbw-allreduce-tree", "latency-allreduce",
                          "latency-allreduce-tree", "pairs-allreduce-nccl-fp32-out",
                          "matmul-tflops"])
        tree = figures[1].figure.axes[0]
        self.assertEqual(tree.get_title(), "allreduce_tree bus bandwidth, 2 ranks")
        [line] = tree.get_lines()
        self.assertEqual(line.get_label(), "splitstep nccl fp32 out of place")
        self.assertEqual(list(line.get_xdata()), [1024, 1 << 20])
        self.assertAlmostEqual(line.get_ydata()[1], 41.943)
        plots.plt.close("all")
        # Without its collective field, a collective case is named by its suite.
        with open(path) as f:
            unnamed = json.load(f)
        for entry in unnamed["cases"]:
            entry["fields"].pop("collective", None)
        self.assertEqual([p.name for p in plots.figures_for(read_results(
            self.write("unnamed.json", unnamed)))],
            ["busbw-allreduce", "busbw-allreduce-tree", "latency-allreduce",
             "latency-allreduce-tree", "pairs-allreduce-nccl-fp32-out", "matmul-tflops"])
        plots.plt.close("all")
        result = self.run_plots(path, "-o", self.out, process=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.written(), ["v2-unknown-collective-busbw-allreduce-tree.png",
                                          "v2-unknown-collective-busbw-allreduce.png",
                                          "v2-unknown-collective-latency-allreduce-tree.png",
                                          "v2-unknown-collective-latency-allreduce.png",
                                          "v2-unknown-collective-matmul-tflops.png",
                                          "v2-unknown-collective-pairs-allreduce-nccl-fp32-out"
                                          ".png"])

    def test_malformed_input_and_options(self):
        good = self.write("good.json", document(matmul_cases()))
        bad = self.write("bad.json", "[1, 2")
        missing = os.path.join(self.dir.name, "none.json")
        for args in ((bad, "-o", self.out), (missing, "-o", self.out),
                     (good, "-o", self.out, "--peak", "bf16"),
                     (good, "-o", self.out, "--peak", "bf16=-3"),
                     (good, "-o", self.out, "--format", "gif"), (good,),
                     (good, "-o", self.out, "--reference", missing),
                     (good, "-o", self.out, "--busbw-together")):
            with self.subTest(args=args):
                result = self.run_plots(*args, process=args[0] is bad)
                self.assertEqual(result.returncode, 2)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                self.assertEqual(self.written(), [])


class FigureContentTest(FilesTestCase):
    """What is drawn: the bars and lines carry the figures of the file."""

    def tearDown(self):
        plots.plt.close("all")
        super().tearDown()

    def test_step_bars_stack_the_per_rank_phase_medians(self):
        [(name, figure, drew)] = plots.step_breakdown_figures(load_ranks(document(step_cases())))
        self.assertEqual(drew, {(c["suite"], c["case"], c["series"]) for c in step_cases()})
        self.assertEqual(name, "step-mlp-bf16")
        panels = figure.axes
        self.assertEqual([p.get_title().split("\n")[0] for p in panels],
                         ["none", "overlap", "single"])
        overlap = panels[1]
        stacked = [b for b in overlap.patches if b.get_width() > 0.5]
        phases = ["data", "forward", "loss", "backward", "sync", "optimizer"]
        self.assertEqual(len(stacked), 2 * len(phases))
        # Bars are drawn phase by phase, rank 0 then rank 1; rank 1 runs 5% slower.
        for index, phase in enumerate(phases):
            for rank in (0, 1):
                bar = stacked[2 * index + rank]
                self.assertAlmostEqual(bar.get_height(), PHASE_MS[phase] * (1 + 0.05 * rank))
        top = stacked[-1].get_y() + stacked[-1].get_height()
        self.assertAlmostEqual(top, sum(PHASE_MS[p] for p in phases) * 1.05)
        comm = [b for b in overlap.patches if b.get_width() < 0.5]
        self.assertAlmostEqual(comm[0].get_height(), PHASE_MS["comm"])
        self.assertEqual(len(panels[2].get_xticklabels()), 1)  # single: rank 0 alone

    def test_gpu_busy_bars_stand_beside_the_phases_they_measure(self):
        # The GPU is busy half of each phase on rank 0 and a quarter on rank 1 (mode single
        # has rank 0 alone); the whole step's busy time is a tick on the narrow bar.
        cases, share = step_cases(), {0: 0.5, 1: 0.25}
        busy = []
        for c in cases:
            if c["series"] == "comm":
                continue
            busy.append(case("step", c["case"], "gpu busy " + c["series"],
                             [np.array(r["values"]) * share[r["rank"]] for r in c["ranks"]],
                             c["params"], part_of="step"))
        [(_, figure, drew)] = plots.step_breakdown_figures(load_ranks(document(cases + busy)))
        self.assertEqual(drew, {(c["suite"], c["case"], c["series"]) for c in cases + busy})
        overlap = figure.axes[1]
        # Narrow bars left of each rank's position are the busy ones, right of it the comm one.
        centre = [b.get_x() + b.get_width() / 2 for b in overlap.patches]
        narrow = [b for b, c in zip(overlap.patches, centre)
                  if b.get_width() < 0.5 and c < round(c)]
        phases = ["data", "forward", "loss", "backward", "sync", "optimizer"]
        self.assertEqual(len(narrow), 2 * len(phases))
        for index, phase in enumerate(phases):
            for rank, share in ((0, 0.5), (1, 0.25)):
                self.assertAlmostEqual(narrow[2 * index + rank].get_height(),
                                       PHASE_MS[phase] * (1 + 0.05 * rank) * share)
        labels = [t.get_text() for t in figure.legends[0].get_texts()]
        self.assertIn("GPU busy (kernels) per phase", labels)
        self.assertIn("GPU busy in the step", labels)

    def test_telemetry_bars_are_each_phases_clock_power_and_power_cap_by_mode(self):
        telemetry = load_telemetry(document(with_telemetry(step_cases())))
        self.assertEqual(len(telemetry), 2 * 6 + 2 * 8 + 6)  # none, overlap (2 ranks), single
        [(name, figure, _)] = plots.telemetry_figures(telemetry)
        self.assertEqual(name, "telemetry-mlp-bf16")
        clock, power, cap = figure.axes[:3]
        labels = [t.get_text() for t in cap.get_xticklabels()]
        # The phases in the order the file's catalogue gives them, then comm and the step.
        self.assertEqual(labels, ["data", "forward", "loss", "backward", "sync", "optimizer",
                                  "comm", "step"])
        # Bars are drawn mode by mode (none, overlap, single), one per series.
        count = len(labels)
        heights = [b.get_height() for b in clock.patches]
        self.assertEqual(heights[labels.index("backward")], 1500)
        self.assertEqual(heights[count + labels.index("backward")], 1425)
        self.assertEqual([b.get_height() for b in power.patches][count], 690)
        caps = [b.get_height() for b in cap.patches]
        self.assertEqual(caps[labels.index("data")], 0)  # the cap never held there
        self.assertAlmostEqual(caps[count + labels.index("step")], 90)
        # Honest axes: from zero, the limits drawn (the maximum clock, the power limit), the
        # power cap's share on a scale to 100%.
        self.assertEqual([panel.get_ylim()[0] for panel in (clock, power, cap)], [0, 0, 0])
        self.assertEqual(cap.get_ylim()[1], 100)
        limits = [[(line.get_label(), line.get_ydata()[0]) for line in panel.get_lines()]
                  for panel in (clock, power)]
        self.assertEqual(limits, [[("maximum SM clock 1980", 1980)], [("power limit 700", 700)]])
        self.assertGreater(clock.get_ylim()[1], 1980)
        self.assertEqual(plots.telemetry_figures(load_telemetry(document(step_cases()))), [])
        plots.plt.close("all")

    def test_busbw_lines_follow_size(self):
        cases = load_cases(document(collective_cases()))
        [(name, figure, drew)] = plots.busbw_figures(cases, 2)
        self.assertEqual(len(drew), 6)
        self.assertEqual(name, "busbw-allreduce")
        lines = {line.get_label(): line for line in figure.axes[0].get_lines()}
        self.assertEqual(set(lines), {"splitstep nccl fp32 out of place",
                                      "splitstep mpi fp32 out of place"})
        line = lines["splitstep nccl fp32 out of place"]
        self.assertEqual(list(line.get_xdata()), [1024, 1 << 20, 64 << 20])
        self.assertAlmostEqual(line.get_ydata()[1], (1 << 20) / 20e-6 / 1e9)
        self.assertEqual(figure.axes[0].get_xscale(), "log")
        # Cases without a bus bandwidth (in one file with others that have one) draw nothing.
        mixed = load_cases(document(collective_cases() + collective_cases("allgather", False)))
        self.assertEqual([p.name for p in plots.busbw_figures(mixed, 2)], ["busbw-allreduce"])

    def test_busbw_points_are_labelled_where_nccls_choice_changes(self):
        cases = load_cases(document(collective_cases()))
        [(_, figure, _)] = plots.busbw_figures(cases, 2)
        self.assertEqual(len(figure.axes[0].texts), 0)  # no choice in the file: no label
        nccl = cases["backend"] == "nccl"
        choices = {1024: ("RING", "LL"), 1 << 20: ("RING", "LL"), 64 << 20: ("NVLS", "SIMPLE")}
        cases.loc[nccl, "nccl_algorithm"] = cases.loc[nccl, "size"].map(
            lambda s: choices[s][0])
        cases.loc[nccl, "nccl_protocol"] = cases.loc[nccl, "size"].map(lambda s: choices[s][1])
        [(_, figure, _)] = plots.busbw_figures(cases, 2)
        labels = [(t.get_text(), t.xy[0]) for t in figure.axes[0].texts]
        # The first point and the change; the MPI line, without a choice, has none.
        self.assertEqual(labels, [("ring/ll", 1024), ("nvls/simple", 64 << 20)])
        plots.plt.close("all")

    def test_latency_lines_are_the_median_time_against_size_on_log_axes(self):
        cases = load_cases(document(collective_cases()))
        [(name, figure, drew)] = plots.latency_figures(cases, 2)
        self.assertEqual(name, "latency-allreduce")
        # The same cases as the busbw figure: one beside the other.
        [(_, _, busbw_drew)] = plots.busbw_figures(cases, 2)
        self.assertEqual(drew, busbw_drew)
        axes = figure.axes[0]
        self.assertEqual(axes.get_title().split("\n")[0], "allreduce time, 2 ranks")
        self.assertEqual((axes.get_xscale(), axes.get_yscale()), ("log", "log"))
        lines = {line.get_label(): line for line in axes.get_lines()}
        self.assertEqual(set(lines), {"splitstep nccl fp32 out of place",
                                      "splitstep mpi fp32 out of place"})
        line = lines["splitstep nccl fp32 out of place"]
        self.assertEqual(list(line.get_xdata()), [1024, 1 << 20, 64 << 20])
        # The median over two ranks, one of them 5% slower, in microseconds.
        np.testing.assert_allclose(line.get_ydata(), np.array([10, 20, 300]) * 1.025)
        # Cases without a bus bandwidth (one rank) are the time figure's, not this one's.
        mixed = load_cases(document(collective_cases() + collective_cases("allgather", False)))
        self.assertEqual([p.name for p in plots.latency_figures(mixed, 2)],
                         ["latency-allreduce"])
        one_rank = load_cases(document(collective_cases(busbw=False), world_size=1))
        self.assertEqual(plots.latency_figures(one_rank, 1), [])

    def test_the_bucket_ledger_sets_each_bucket_against_the_end_of_backward(self):
        cases = [c for c in step_cases() if c["params"]["mode"] == "overlap"] + ledger_cases()
        [(name, figure, drew)] = plots.bucket_ledger_figures(load_cases(document(cases)))
        self.assertEqual(name, "step-buckets-mlp-bf16")
        self.assertEqual(drew, {(c["suite"], c["case"], c["series"]) for c in ledger_cases()})
        [panel] = figure.axes
        self.assertEqual(panel.get_title(), "overlap: packing 0 ms")
        bars = [(round(b.get_x(), 6), round(b.get_width(), 6)) for b in panel.patches]
        # comm bars (bucket 0, 1), then the launch delays before them.
        self.assertEqual(bars, [(-15.5, 3.0), (-7.0, 6.0), (-16.0, 0.5), (-8.0, 1.0)])
        [ready] = panel.collections
        # backward's median over the two ranks (20 ms and 5% more): 20.5 ms.
        np.testing.assert_allclose(ready.get_offsets()[:, 0], [4.0 - 20.5, 12.0 - 20.5])
        self.assertEqual([t.get_text() for t in panel.get_yticklabels()],
                         ["bucket 0 (25.0 MiB)", "bucket 1 (25.0 MiB)"])
        self.assertEqual(plots.bucket_ledger_figures(load_cases(document(step_cases()))), [])

    def test_time_lines_for_collectives_without_busbw(self):
        cases = load_cases(document(collective_cases(busbw=False), world_size=1))
        self.assertEqual(plots.busbw_figures(cases, 1), [])
        [(name, figure, drew)] = plots.time_figures(cases, 1)
        self.assertEqual(name, "time-allreduce")
        self.assertEqual(len(drew), 6)
        axes = figure.axes[0]
        self.assertEqual(axes.get_title(), "allreduce time (no busbw, 1 rank)")
        lines = {line.get_label(): line for line in axes.get_lines()}
        line = lines["splitstep nccl fp32 out of place"]
        self.assertEqual(list(line.get_xdata()), [1024, 1 << 20, 64 << 20])
        # The median over two ranks, one of them 5% slower, in microseconds.
        np.testing.assert_allclose(line.get_ydata(), np.array([10, 20, 300]) * 1.025)

    def test_matmul_bars_are_rates_against_the_ceilings(self):
        name, figure, _ = plots.matmul_figure(load_cases(document(matmul_cases())),
                                              {"bf16": 989.0})
        axes = figure.axes[0]
        # The median over two ranks, one of them 5% slower: 2.5% below the rank-0 rate.
        heights = sorted(b.get_height() for b in axes.patches)
        np.testing.assert_allclose(heights, np.array([50.0, 50.0, 700.0, 700.0]) / 1.025)
        levels = {line.get_label(): line.get_ydata()[0] for line in axes.get_lines()
                  if line.get_label().startswith(("fp32", "bf16"))}
        self.assertAlmostEqual(levels["bf16 best measured 683"], 700.0 / 1.025)
        self.assertAlmostEqual(levels["bf16 datasheet 989"], 989.0)
        self.assertNotIn("fp32 datasheet", " ".join(levels))
        self.assertIsNone(plots.matmul_figure(load_cases(document(membw_cases()))))

    def test_membw_bars_are_the_rates(self):
        name, figure, drew = plots.membw_figure(load_cases(document(membw_cases())))
        self.assertEqual(name, "membw")
        self.assertEqual([b.get_height() for b in figure.axes[0].patches], [4000.0])
        self.assertEqual([t.get_text() for t in figure.axes[0].get_xticklabels()], ["1 GiB"])
        self.assertEqual(drew, {("membw", "copy 1 GiB", "copy")})

    def test_scaling_rows_take_the_derived_figures(self):
        rows = plots.scaling_rows([("run.json", document(step_cases(), step_derived()))])
        self.assertEqual(rows, [{"file": "run.json", "workload": "mlp bf16", "ranks": 2,
                                 "mode": "overlap", "T_1 (ms)": 35.0, "T_N (ms)": 40.0,
                                 "efficiency (%)": 87.5}])
        self.assertEqual(plots.scaling_rows([("run.json", document(step_cases()))]), [])
        self.assertIsNone(plots.scaling_figure([("run.json", document(matmul_cases()))]))

    def test_scaling_is_efficiency_against_gpus_and_one_rank_is_apart(self):
        # The committed 1- and 2-rank runs: the figure showed "96.1%" for the one-rank run as
        # a scaling bar, and its table ran over the bars.
        step = os.path.join(ROOT, "results", "2026-11-30-h200x2-step")
        files = [os.path.join(step, name) for name in ("step-np1.json", "step-np2-final.json")]
        name, figure, _ = plots.scaling_figure([(f, read_results(f)) for f in files])
        self.assertEqual(name, "scaling")
        [axes] = figure.axes  # no table beside it
        self.assertEqual(axes.get_xlabel(), "GPUs (ranks)")
        self.assertEqual(axes.get_ylim()[0], 0)
        lines = {line.get_label(): line for line in axes.get_lines()}
        # Each workload's line holds the runs with peers only: the 2-rank run.
        for workload, efficiency in (("mlp bf16 (overlap)", 90.1), ("transformer bf16 (overlap)",
                                                                     97.6)):
            self.assertEqual(list(lines[workload].get_xdata()), [2])
            self.assertAlmostEqual(lines[workload].get_ydata()[0], efficiency, places=1)
        # The one-rank runs are hollow markers at 1 GPU, named in the legend as no scaling point.
        hollow = [c for c in axes.collections if len(c.get_offsets())]
        self.assertEqual(sorted(round(float(y), 1) for c in hollow for _, y in c.get_offsets()),
                         [96.1, 98.7])
        self.assertTrue(all(c.get_facecolors().size == 0 or c.get_facecolors()[0][3] == 0
                            for c in hollow))
        self.assertIn("not a scaling point", " ".join(t.get_text()
                                                      for t in axes.get_legend().get_texts()))
        # Every label lies within the figure.
        figure.canvas.draw()
        box = figure.bbox
        for text in axes.texts:
            extent = text.get_window_extent()
            self.assertTrue(box.x0 <= extent.x0 and extent.x1 <= box.x1, text.get_text())
        plots.plt.close(figure)

    def test_pairs_are_a_heatmap_of_rank_against_rank(self):
        # --groups pairs on 4 ranks, rank 3 slow: its row and column pale, at two sizes.
        cases = []
        pairs = [(0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2)]
        for index, (a, b) in enumerate(pairs):
            for size in (1 << 20, 1 << 28):
                busbw = (100.0 if 3 in (a, b) else 300.0) * (2 if size > 1 << 20 else 1)
                cases.append(case("allreduce", f"nccl fp32 {size} B group {a},{b}", "allreduce",
                                  [samples(size / busbw / 1e9, 0)] * 2,
                                  {"backend": "nccl", "dtype": "fp32", "size": str(size),
                                   "bytes": str(size), "placement": "out of place",
                                   "group": f"{a},{b}", "group_index": str(index),
                                   "group_mode": "sequential"},
                                  {"busbw GB/s": busbw, "algbw GB/s": busbw}))
        whole = collective_cases()  # and the world's allreduce, drawn as lines
        frame = load_cases(document(cases + whole, world_size=4))
        [plot] = plots.group_figures(frame, 4)
        self.assertEqual(plot.name, "pairs-allreduce-nccl-fp32-out")
        self.assertEqual(len(plot.drew), 12)
        small, large = (axes for axes in plot.figure.axes if axes.get_images())
        self.assertEqual([small.get_title(), large.get_title()], ["1 MiB", "256 MiB"])
        matrix = small.get_images()[0].get_array()
        self.assertEqual(matrix.shape, (4, 4))
        self.assertTrue(np.ma.getmaskarray(matrix)[0, 0] or np.isnan(matrix[0, 0]))  # blank
        self.assertEqual(matrix[0, 1], 300.0)
        self.assertEqual(matrix[1, 0], 300.0)
        self.assertEqual(list(matrix[3, :3]), [100.0, 100.0, 100.0])
        self.assertEqual(large.get_images()[0].get_array()[2, 3], 200.0)
        self.assertEqual(small.get_images()[0].get_clim()[0], 0)
        # The groups' cases are not in the lines of busbw against size.
        [busbw] = plots.busbw_figures(frame, 4)
        self.assertEqual(busbw.drew, _keys(load_cases(document(whole))))
        plots.plt.close("all")

    def test_parity_bars_are_each_phase_beside_the_library_model(self):
        # The committed zoo parity run: four models at their preset and one drawn shape.
        path = os.path.join(ROOT, "results", "2026-12-01-h200-zoo-parity", "parity.csv")
        parity = plots.read_parity(path)
        name, figure, _ = plots.parity_figure(parity)
        self.assertEqual(name, "parity")
        panels = [axes for axes in figure.axes if axes.patches]
        self.assertEqual(len(panels), 8)
        gpt2 = panels[0]
        self.assertEqual(gpt2.get_title(), "gpt2 bf16 single, 1 rank\nsplitstep-gpt2-preset")
        rows = parity[parity["splitstep_file"].str.endswith("splitstep-gpt2-preset.json")]
        self.assertEqual([t.get_text() for t in gpt2.get_xticklabels()], list(rows["phase"]))
        heights = [bar.get_height() for bar in gpt2.patches]
        np.testing.assert_allclose(heights, list(rows["splitstep_s"] * 1e3) +
                                   list(rows["reference_s"] * 1e3))
        self.assertEqual([t.get_text() for t in gpt2.texts],
                         [f"{r:.3f}" for r in rows["ratio"]])  # 0.958 forward: faster
        self.assertEqual(gpt2.texts[0].get_color(), VERDICT_COLORS["faster"])
        self.assertEqual(gpt2.get_ylim()[0], 0)
        plots.plt.close(figure)

    def test_parity_from_the_command_and_bad_parity_files(self):
        folder = os.path.join(ROOT, "results", "2026-12-01-h200-zoo-parity")
        out = os.path.join(self.dir.name, "out")
        result = run_command("plot", os.path.join(folder, "splitstep-gpt2-preset.json"), "-o",
                             out, "--parity", os.path.join(folder, "parity.csv"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(os.path.join(out, "parity.png"), result.stdout.splitlines())
        not_parity = self.write("other.csv", "model,phase\ngpt2,forward\n")
        bad = run_command("plot", os.path.join(folder, "splitstep-gpt2-preset.json"), "-o", out,
                          "--parity", not_parity)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("not parity.py's CSV: no column precision", bad.stderr)

    def test_peaks_and_sizes(self):
        self.assertEqual(plots.parse_peaks("bf16=989, fp16=989.5"),
                         {"bf16": 989.0, "fp16": 989.5})
        for bad in ("bf16", "bf16=x", "=3", "bf16=0"):
            with self.assertRaises(ValueError):
                plots.parse_peaks(bad)
        self.assertEqual([size_label(s) for s in (8, 1024, 65536, 3 << 20, 1 << 30, 1000)],
                         ["8 B", "1 KiB", "64 KiB", "3 MiB", "1 GiB", "1000 B"])


if __name__ == "__main__":
    unittest.main()
