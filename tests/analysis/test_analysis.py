"""The analysis helpers on a small results file of the documented schema."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ANALYSIS = os.path.join(os.path.dirname(__file__), "..", "..", "analysis")
sys.path.insert(0, ANALYSIS)

from splitstep_results import load_cases, load_derived  # noqa: E402


def case(suite, size, median, busbw, backend="nccl", skipped=False):
    entry = {
        "suite": suite, "case": f"{backend} fp32 {size} B", "series": suite, "unit": "s",
        "clock": "device (CUDA events)", "notes": [], "warnings": [], "skipped": skipped,
        "params": {"backend": backend, "dtype": "fp32", "size": str(size), "bytes": str(size),
                   "placement": "out of place"},
        "rates": {} if skipped else {"algbw GB/s": busbw, "busbw GB/s": busbw},
        "check": {"checked": 10, "wrong": 0}, "ranks": [],
    }
    if not skipped:
        entry["across_ranks"] = {"min": median, "median": median, "max": median}
        entry["slowest_rank"] = 1
        entry["arrival_skew"] = 1e-6
    return entry


class AnalysisTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.results = os.path.join(self.dir.name, "results.json")
        document = {"schema": "splitstep.results/1", "metadata": {}, "plan": {}, "ranks": [],
                    "cases": [case("allreduce", 8, 10e-6, 0.0),
                              case("allreduce", 65536, 10e-6, 6.5),
                              case("allreduce", 1 << 20, 15e-6, 70.0),
                              case("allreduce", 1 << 20, 0, 0, backend="mpi", skipped=True)]}
        with open(self.results, "w") as f:
            json.dump(document, f)
        self.reference = os.path.join(self.dir.name, "reference.csv")
        with open(self.reference, "w") as f:
            f.write("# a comment\ncollective,size_bytes,time_us,busbw_gbps,label\n"
                    "allreduce,65536,10.0,6.41,nccl-tests\nallreduce,1048576,15.0,69.51,nccl-tests\n")

    def tearDown(self):
        self.dir.cleanup()

    def test_load_cases_keeps_measured_cases_with_numeric_sizes(self):
        frame = load_cases(self.results)
        self.assertEqual(len(frame), 3)
        self.assertEqual(list(frame["size"]), [8, 65536, 1 << 20])
        self.assertAlmostEqual(frame["busbw GB/s"].iloc[2], 70.0)

    def test_load_derived_has_one_row_per_figure(self):
        with open(self.results) as f:
            document = json.load(f)
        document["derived"] = [{"suite": "step", "subject": "mlp bf16", "title": "t",
                                "figures": [{"tag": "step/time/none", "name": "T_c", "unit": "s",
                                             "value": 0.043, "per_rank": [], "note": ""},
                                            {"tag": "step/efficiency/overlap", "name": "eff",
                                             "unit": "%", "value": 90.0, "per_rank": [],
                                             "note": "2 GPUs"}],
                                "findings": []}]
        with open(self.results, "w") as f:
            json.dump(document, f)
        frame = load_derived(self.results)
        self.assertEqual(list(frame["tag"]), ["step/time/none", "step/efficiency/overlap"])
        self.assertAlmostEqual(frame.set_index("tag").loc["step/efficiency/overlap", "value"], 90.0)
        self.assertEqual(set(load_cases(self.results)["series"]), {"allreduce"})

    def test_load_cases_refuses_other_files(self):
        other = os.path.join(self.dir.name, "other.json")
        with open(other, "w") as f:
            json.dump({"schema": "something else"}, f)
        with self.assertRaises(ValueError):
            load_cases(other)

    def test_compare_reference_prints_ratios(self):
        out = subprocess.run([sys.executable, os.path.join(ANALYSIS, "compare_reference.py"),
                              self.results, self.reference],
                             check=True, capture_output=True, text=True).stdout
        # 1 MiB: 15 us against 15 us, 70 GB/s against 69.51.
        row = [line for line in out.splitlines() if " 1048576 " in line][0]
        self.assertIn("1.000", row.split())
        self.assertIn(f"{70.0 / 69.51:.3f}", row.split())

    def test_scaling_table_puts_rank_counts_side_by_side(self):
        paths = []
        for ranks, busbw, t_ddp in ((2, 70.0, 0.050), (4, 60.0, 0.055)):
            with open(self.results) as f:
                document = json.load(f)
            document["metadata"] = {"world_size": ranks}
            document["cases"] = [case("allreduce", 1 << 20, 15e-6, busbw)]
            document["derived"] = [{"suite": "step", "subject": "mlp bf16", "title": "t",
                                    "findings": [],
                                    "figures": [{"tag": "step/time/overlap", "name": "T_ddp",
                                                 "unit": "s", "value": t_ddp, "per_rank": [],
                                                 "note": ""}]}]
            paths.append(os.path.join(self.dir.name, f"np{ranks}.json"))
            with open(paths[-1], "w") as f:
                json.dump(document, f)
        out = subprocess.run([sys.executable, os.path.join(ANALYSIS, "scaling_table.py")] + paths,
                             check=True, capture_output=True, text=True).stdout
        self.assertIn("| bytes | busbw GB/s, 2 ranks | busbw GB/s, 4 ranks |", out)
        self.assertIn("| 1048576 | 70.00 | 60.00 |", out)
        self.assertIn("| mlp bf16 | 4 | - | - | 55.00 | - | - | - | - |", out)

    def test_plot_writes_a_png(self):
        png = os.path.join(self.dir.name, "busbw.png")
        subprocess.run([sys.executable, os.path.join(ANALYSIS, "plot_busbw.py"), self.results,
                        "--reference", self.reference, "-o", png], check=True)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
