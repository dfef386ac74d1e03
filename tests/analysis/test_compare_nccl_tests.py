"""compare_nccl_tests.py on a small results file and nccl-tests tables of the documented forms."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ANALYSIS = os.path.join(os.path.dirname(__file__), "..", "..", "analysis")
sys.path.insert(0, ANALYSIS)

from compare_nccl_tests import collective_of, parse_nccl_tests  # noqa: E402

# As alltoall_perf prints it: a root column, N/A where it does not check the in-place result.
ALLTOALL = """# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 4(factor) warmup iters: 10 iters: 50
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
           8             2     float    none      -1    10.00    0.00    0.00      0    10.00    0.00    0.00    N/A
    67108864      16777216     float    none      -1   200.00  335.54  167.77      0   201.00  333.87  166.94    N/A
   134217728      33554432     float    none      -1   400.00  335.54  167.77      0   401.00  334.71  167.36    N/A
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 111.85
"""


def case(suite, size, median, busbw, placement="out of place"):
    return {"suite": suite, "case": f"nccl fp32 {size}", "series": suite, "unit": "s",
            "clock": "device (CUDA events)", "notes": [], "warnings": [], "skipped": False,
            "params": {"backend": "nccl", "dtype": "fp32", "size": str(size), "bytes": str(size),
                       "placement": placement},
            "rates": {"algbw GB/s": 2 * busbw, "busbw GB/s": busbw},
            "check": {"checked": 10, "wrong": 0}, "ranks": [],
            "across_ranks": {"min": median, "median": median, "max": median},
            "slowest_rank": 0, "arrival_skew": 1e-6}


class CompareNcclTestsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.nccl = os.path.join(self.dir.name, "alltoall_perf.txt")
        with open(self.nccl, "w") as f:
            f.write(ALLTOALL)

    def tearDown(self):
        self.dir.cleanup()

    def run_compare(self, cases, *extra):
        results = os.path.join(self.dir.name, "results.json")
        with open(results, "w") as f:
            json.dump({"schema": "splitstep.results/1", "metadata": {}, "plan": {}, "ranks": [],
                       "cases": cases}, f)
        return subprocess.run([sys.executable, os.path.join(ANALYSIS, "compare_nccl_tests.py"),
                               results, self.nccl, *extra], capture_output=True, text=True)

    def test_parses_both_placements_of_each_size(self):
        frame = parse_nccl_tests(ALLTOALL, "alltoall")
        self.assertEqual(len(frame), 6)
        row = frame[(frame["bytes"] == 67108864) & (frame["placement"] == "out of place")].iloc[0]
        self.assertEqual(row["dtype"], "fp32")
        self.assertAlmostEqual(row["nccl_tests_us"], 200.0)
        self.assertAlmostEqual(row["nccl_tests_busbw"], 167.77)
        in_place = frame[(frame["bytes"] == 8) & (frame["placement"] == "in place")].iloc[0]
        self.assertTrue(in_place["nccl_tests_wrong"] != in_place["nccl_tests_wrong"])  # N/A: NaN

    def test_names_the_collective_by_its_binary_or_explicitly(self):
        self.assertEqual(collective_of("out/all_reduce_perf-np2.log"),
                         ("allreduce", "out/all_reduce_perf-np2.log"))
        self.assertEqual(collective_of("out/reduce_scatter_perf.txt")[0], "reduce_scatter")
        self.assertEqual(collective_of("out/reduce_perf.txt")[0], "reduce")
        self.assertEqual(collective_of("gather=x.txt"), ("gather", "x.txt"))
        with self.assertRaises(SystemExit):
            collective_of("x.txt")

    def test_within_tolerance_from_min_bytes_up(self):
        # 1% below nccl-tests at 64 MiB and 128 MiB; far off at 8 B, which is not judged.
        done = self.run_compare([case("alltoall", 8, 20e-6, 0.0),
                                 case("alltoall", 67108864, 202e-6, 167.77 * 0.99),
                                 case("alltoall", 134217728, 404e-6, 167.77 * 0.99)])
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("alltoall out of place: busbw ratio 0.990-0.990 over 2 sizes >= 67108864 B, "
                      "within 2%", done.stdout)
        self.assertIn("3 cases of these collectives, 0 with wrong elements", done.stdout)
        row = [line for line in done.stdout.splitlines() if " 67108864 " in line][0]
        self.assertIn("1.010", row.split())  # 202 us against 200 us

    def test_outside_tolerance_fails(self):
        done = self.run_compare([case("alltoall", 67108864, 210e-6, 167.77 * 0.95),
                                 case("alltoall", 134217728, 404e-6, 167.77 * 0.99)])
        self.assertEqual(done.returncode, 1)
        self.assertIn("OUTSIDE 2% (worst at 67108864 B)", done.stdout)

    def test_a_failed_check_fails(self):
        spoiled = case("alltoall", 67108864, 202e-6, 167.77 * 0.99)
        spoiled["check"]["wrong"] = 3
        done = self.run_compare([spoiled, case("alltoall", 134217728, 404e-6, 167.77 * 0.99)])
        self.assertEqual(done.returncode, 1)
        self.assertIn("2 cases of these collectives, 1 with wrong elements", done.stdout)
        self.assertIn("alltoall nccl fp32 67108864: 3 wrong", done.stdout)

    def test_nothing_to_compare(self):
        done = self.run_compare([case("allreduce", 67108864, 200e-6, 300.0)])
        self.assertEqual(done.returncode, 2)
        self.assertIn("no splitstep case matches", done.stderr)


if __name__ == "__main__":
    unittest.main()
