"""A step's three figures (splitstep_analysis.launches, `report --eager`): eager PyTorch beside
splitstep's step and its graphed step, paired by model, precision, parameter count and mode, on
the committed runs of one H200 (results/2026-12-03-h200-graphed-step)."""
import copy
import json
import os
import statistics

from splitstep_analysis import plot
from splitstep_analysis.launches import launches, paired, read_eager
from splitstep_analysis.schema import BadInput, read_results
from support import ROOT, FilesTestCase, run_command

HOST = os.path.join(ROOT, "results", "2026-12-03-h200-graphed-step", "host")
VIT = os.path.join(HOST, "splitstep-vit-b16-small-1.json")
VIT_EAGER = os.path.join(HOST, "library-vit-b16-small-1.json")
LLAMA = os.path.join(HOST, "splitstep-llama-preset.json")


class LaunchesTest(FilesTestCase):
    def tearDown(self):
        plot.plt.close("all")
        super().tearDown()

    def test_the_three_figures_of_a_case(self):
        eager = read_eager(VIT_EAGER)
        row = launches(read_results(VIT), VIT_EAGER, eager)
        self.assertEqual(row.case, "vit-b16 bf16 single")
        with open(VIT_EAGER) as f:
            steps = json.load(f)["ranks"][0]["phases"]["step"]
        self.assertEqual(row.eager_s, statistics.median(steps))
        cases = {(c["case"], c["series"]): c for c in read_results(VIT)["cases"]}
        self.assertEqual(row.splitstep_s,
                         cases[("vit-b16 bf16 single", "step")]["across_ranks"]["median"])
        self.assertEqual(row.graphed_s,
                         cases[("vit-b16 bf16 single graphed", "step")]["across_ranks"]["median"])
        self.assertEqual(row.kernel_s,
                         cases[("vit-b16 bf16 single", "gpu busy step")]["across_ranks"]["median"])
        # The eager step is host-bound there: eager PyTorch > splitstep > graphed > kernels.
        self.assertGreater(row.eager_s, row.splitstep_s)
        self.assertGreater(row.splitstep_s, row.graphed_s)
        self.assertGreaterEqual(row.graphed_s, row.kernel_s)

    def test_a_skipped_graph_says_why(self):
        document = read_results(LLAMA)
        fields = next(c["fields"] for c in document["cases"] if c["case"] == "llama bf16 single")
        eager = {"tool": "splitstep-analysis eager", "model": "llama", "precision": "bf16",
                 "parameters": fields["parameters"], "world_size": 1, "ddp": False,
                 "no_sync": False, "ranks": [{"rank": 0, "phases": {"step": [0.4, 0.5, 0.6]}}]}
        row = launches(document, "llama.json", eager)
        self.assertEqual(row.eager_s, 0.5)
        self.assertIsNone(row.graphed_s)
        self.assertIn("a host sync inside the step", row.graphed_why)
        # Another parameter count is another model; under DDP it pairs with overlap only.
        self.assertIsNone(launches(document, "x", dict(eager, parameters=1)))
        self.assertIsNone(launches(document, "x", dict(eager, ddp=True, world_size=2)))
        with self.assertRaisesRegex(BadInput, r"'x' \(llama bf16, 1 parameters\) pairs with no "
                                              r"step case of the results files"):
            paired([(LLAMA, document)], [("x", dict(eager, parameters=1))])

    def test_the_report_shows_them_side_by_side(self):
        out = os.path.join(self.dir.name, "report.html")
        done = run_command("report", VIT, "--eager", VIT_EAGER, "-o", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(out, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("One step, three figures: eager PyTorch, splitstep, graphed", text)
        self.assertIn('<img alt="launches" src="data:image/png;base64,', text)
        row = launches(read_results(VIT), VIT_EAGER, read_eager(VIT_EAGER))
        self.assertIn(f"{row.eager_s / row.splitstep_s:.2f}x", text)
        self.assertIn(f"{row.splitstep_s / row.graphed_s:.2f}x", text)

    def test_bad_eager_files_exit_2(self):
        other = self.write("other.json", json.dumps({"tool": "something else", "ranks": []}))
        unpaired = copy.deepcopy(read_eager(VIT_EAGER))
        unpaired["precision"] = "fp32"
        unpaired_path = self.write("fp32.json", json.dumps(unpaired))
        for eager, message in ((other, "is not a file of splitstep-analysis eager --json"),
                               (os.path.join(self.dir.name, "none.json"), "cannot read"),
                               (unpaired_path, "pairs with no step case")):
            with self.subTest(eager=eager):
                done = run_command("report", VIT, "--eager", eager,
                                   "-o", os.path.join(self.dir.name, "r.html"))
                self.assertEqual(done.returncode, 2, done.stderr)
                self.assertIn(message, done.stderr)
                self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
