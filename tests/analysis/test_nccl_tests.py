"""splitstep-analysis nccl-tests: nccl-tests' output parsed, written as a reference table, and a
small results file beside nccl-tests tables of the documented forms and beside a reference
table. `table` and the parser run under a bare python3 (CTest analysis_python_stdlib)."""
import os
import unittest

from splitstep_analysis.collective_facts import binaries
from splitstep_analysis.nccl_tests import collective_of, parse_nccl_tests
from splitstep_analysis.schema import BadInput
from support import FilesTestCase, run_command


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


OUTPUT = """\
# nThread 1 nGpus 1 minBytes 8 maxBytes 4294967296 step: 2(factor) warmup iters: 5 iters: 20
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
           8             2     float     sum      -1    10.97    0.00    0.00      0    10.50    0.00    0.00      0
    33554432       8388608     float     sum      -1   141.20  237.64  237.64      0   140.90  238.15  238.15      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 118.8
"""


# all_reduce_perf on one GPU: a copy, no busbw.
ONE_GPU = """\
# nThread 1 nGpus 1 minBytes 8 maxBytes 4294967296 step: 2(factor) warmup iters: 5 iters: 20
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
           8             2     float     sum      -1     4.10    0.00    0.00      0     0.20    0.04    0.00      0
    33554432       8388608     float     sum      -1    18.40 1823.61    0.00      0     0.18  2e+05    0.00      0
  4294967296    1073741824     float     sum      -1  1996.31 2151.50    0.00      0     0.84  5e+06    0.00      0
"""


def case(suite, size, median, busbw, placement="out of place"):
    """A case of two ranks; busbw None: of one rank, which has none."""
    rates = {"algbw GB/s": size / median / 1e9}
    if busbw is not None:
        rates = {"algbw GB/s": 2 * busbw, "busbw GB/s": busbw}
    return {"suite": suite, "case": f"nccl fp32 {size}", "series": suite, "unit": "s",
            "clock": "device (CUDA events)", "notes": [], "warnings": [], "skipped": False,
            "params": {"backend": "nccl", "dtype": "fp32", "size": str(size), "bytes": str(size),
                       "placement": placement},
            "rates": rates,
            "check": {"checked": 10, "wrong": 0}, "ranks": [],
            "across_ranks": {"min": median, "median": median, "max": median},
            "slowest_rank": 0, "arrival_skew": 1e-6}


class ParseTest(FilesTestCase):
    """The standard library only."""

    def test_parses_both_placements_of_each_size(self):
        rows = parse_nccl_tests(ALLTOALL, "alltoall")
        self.assertEqual(len(rows), 6)
        [row] = [r for r in rows if r["bytes"] == 67108864 and r["placement"] == "out"]
        self.assertEqual(row["dtype"], "fp32")
        self.assertAlmostEqual(row["nccl_tests_us"], 200.0)
        self.assertAlmostEqual(row["nccl_tests_busbw"], 167.77)
        [in_place] = [r for r in rows if r["bytes"] == 8 and r["placement"] == "in"]
        self.assertTrue(in_place["nccl_tests_wrong"] != in_place["nccl_tests_wrong"])  # N/A: NaN

    def test_data_rows_give_size_and_the_out_of_place_time_and_busbw(self):
        rows = [(r["bytes"], r["nccl_tests_us"], r["nccl_tests_busbw"])
                for r in parse_nccl_tests(OUTPUT, "allreduce") if r["placement"] == "out"]
        self.assertEqual(rows, [(8, 10.97, 0.0), (33554432, 141.20, 237.64)])

    def test_the_command_line_writes_the_reference_csv(self):
        path = self.write("nccl-tests.txt", OUTPUT)
        result = run_command("nccl-tests", "table", "allreduce", path, process=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.splitlines(),
                         ["collective,size_bytes,time_us,busbw_gbps,label",
                          "allreduce,8,10.97,0.0,nccl-tests",
                          "allreduce,33554432,141.2,237.64,nccl-tests"])
        for args in (("allreduce", self.write("empty.txt", "# nothing\n")),
                     ("allreduce", os.path.join(self.dir.name, "none.txt")), ()):
            result = run_command("nccl-tests", "table", *args)
            self.assertEqual(result.returncode, 2, args)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)

    def test_names_the_collective_by_its_binary_or_explicitly(self):
        # The binaries of a file written before the catalogue carried them.
        known = binaries({"metadata": {"catalogue": {"collectives": []}}})
        self.assertEqual(collective_of("out/all_reduce_perf-np2.log", known),
                         ("allreduce", "out/all_reduce_perf-np2.log"))
        self.assertEqual(collective_of("out/reduce_scatter_perf.txt", known)[0], "reduce_scatter")
        self.assertEqual(collective_of("out/reduce_perf.txt", known)[0], "reduce")
        self.assertEqual(collective_of("gather=x.txt", known), ("gather", "x.txt"))
        # The binary the output names, whatever the file's name.
        started = "# nThread 1\n# Collective test starting: all_gather_perf\n"
        self.assertEqual(collective_of("x.txt", known, started), ("allgather", "x.txt"))
        for bad in ("x.txt", "allreduce_tree=x.txt"):
            with self.assertRaises(BadInput):
                collective_of(bad, known)
        # A results file's catalogue names its own collectives' binaries.
        facts = {"allreduce_tree": {"root": None, "reduction": "sum", "verdicts": [],
                                    "nccl_tests_binary": "all_reduce_tree_perf"}}
        own = binaries({"metadata": {"catalogue": {"collectives": ["allreduce_tree"],
                                                   "collective_facts": facts}}})
        self.assertEqual(collective_of("out/all_reduce_tree_perf.txt", own)[0], "allreduce_tree")
        self.assertEqual(collective_of("allreduce_tree=x.txt", own)[0], "allreduce_tree")
        with self.assertRaises(BadInput):
            collective_of("out/all_reduce_perf.txt", own)


class CompareNcclTestsTest(FilesTestCase):
    def setUp(self):
        super().setUp()
        self.nccl = self.write("alltoall_perf.txt", ALLTOALL)

    def run_compare(self, cases, *extra, sources=None):
        results = self.write("results.json", {"schema": "splitstep.results/1", "metadata": {},
                                              "plan": {}, "ranks": [], "cases": cases})
        return run_command("nccl-tests", "compare", results, *(sources or [self.nccl]), *extra)

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

    def test_one_rank_is_judged_by_its_times(self):
        # One GPU: neither side has a busbw; the times from 32 MiB up are 0.5% and 0.3% above.
        one_gpu = self.write("all_reduce_perf.txt", ONE_GPU)
        cases = [case("allreduce", 8, 4.5e-6, None),
                 case("allreduce", 33554432, 18.492e-6, None),
                 case("allreduce", 4294967296, 2002.3e-6, None)]
        done = self.run_compare(cases, "--min-bytes", "32M", "--tolerance", "1",
                                sources=[one_gpu])
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("allreduce out of place: time ratio 1.003-1.005 over 2 sizes >= 33554432 B, "
                      "within 1% (worst at 33554432 B) (one rank: no busbw)", done.stdout)
        # A time 2% off is outside, as a busbw would be.
        cases[2] = case("allreduce", 4294967296, 2036.2e-6, None)
        done = self.run_compare(cases, "--min-bytes", "32M", "--tolerance", "1",
                                sources=[one_gpu])
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assertIn("time ratio 1.005-1.020 over 2 sizes >= 33554432 B, OUTSIDE 1% "
                      "(worst at 4294967296 B)", done.stdout)

    def test_best_holds_each_size_to_the_fastest_of_nccl_tests_runs(self):
        # The eager run is host-bound at 32 MiB (21.0 us), its graph run slower at 4 GiB: each
        # size is held to the faster run, which the table names.
        eager = self.write("nccl-tests.txt", ONE_GPU.replace("    18.40 ", "    21.00 "))
        graph = self.write("nccl-tests-graph.txt", ONE_GPU.replace("  1996.31 ", "  3096.00 "))
        cases = [case("allreduce", 33554432, 18.492e-6, None),
                 case("allreduce", 4294967296, 2002.3e-6, None)]
        args = ["--min-bytes", "32M", "--tolerance", "1"]
        sources = [f"allreduce={eager}", f"allreduce={graph}"]
        done = self.run_compare(cases, *args, "--best", sources=sources)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("time ratio 1.003-1.005 over 2 sizes", done.stdout)
        rows = {line.split()[3]: line.split() for line in done.stdout.splitlines()
                if line.split()[:1] == ["allreduce"]}
        self.assertEqual(rows["33554432"][-1], "nccl-tests-graph.txt")
        self.assertEqual(rows["4294967296"][-1], "nccl-tests.txt")
        # Without --best every run's rows are judged: the eager 32 MiB and the graph 4 GiB fail.
        done = self.run_compare(cases, *args, sources=sources)
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assertIn("time ratio 0.647-1.005 over 4 sizes", done.stdout)
        self.assertIn("0.881", done.stdout)

    def test_nothing_to_compare(self):
        done = self.run_compare([case("allreduce", 67108864, 200e-6, 300.0)])
        self.assertEqual(done.returncode, 2)
        self.assertIn("no splitstep case matches", done.stderr)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)

    def test_beside_a_reference_table(self):
        reference = self.write("reference.csv", "# a comment\n"
                               "collective,size_bytes,time_us,busbw_gbps,label\n"
                               "allreduce,65536,10.0,6.41,nccl-tests\n"
                               "allreduce,1048576,15.0,69.51,nccl-tests\n")
        cases = [case("allreduce", 8, 10e-6, 0.0), case("allreduce", 65536, 10e-6, 6.5),
                 case("allreduce", 1 << 20, 15e-6, 70.0)]
        done = self.run_compare(cases, "--min-bytes", "64K", sources=[reference])
        self.assertEqual(done.returncode, 0, done.stderr)
        # 1 MiB: 15 us against 15 us, 70 GB/s against 69.51.
        row = [line for line in done.stdout.splitlines() if " 1048576 " in line][0]
        self.assertIn("1.000", row.split())
        self.assertIn(f"{70.0 / 69.51:.3f}", row.split())
        self.assertIn("allreduce out of place: busbw ratio 1.007-1.014 over 2 sizes >= 65536 B, "
                      "within 2%", done.stdout)
        # 6.5 against 6.41 is 1.4% above: outside a 1% tolerance.
        done = self.run_compare(cases, "--min-bytes", "64K", "--tolerance", "1",
                                sources=[reference])
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertIn("OUTSIDE 1% (worst at 65536 B)", done.stdout)
        bad = self.write("bad.csv", "collective,size\nallreduce,8\n")
        done = self.run_compare(cases, sources=[bad])
        self.assertEqual(done.returncode, 2)
        self.assertIn("no column size_bytes, time_us, busbw_gbps, label", done.stderr)

    def test_committed_cluster_run_against_its_nccl_tests_logs(self):
        folder = os.path.join(os.path.dirname(__file__), "..", "..", "results",
                              "2026-12-01-h200x2-cluster")
        logs = [os.path.join(folder, f"{name}_perf.txt")
                for name in ("alltoall", "sendrecv", "reduce", "gather", "scatter")]
        done = run_command("nccl-tests", "compare", os.path.join(folder, "new-collectives.json"),
                           *logs, process=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        # As results/2026-12-01-h200x2-cluster/new-collectives-vs-nccl-tests.txt has it.
        self.assertIn("alltoall out of place: busbw ratio 0.989-0.996 over 2 sizes >= 67108864 B, "
                      "within 2% (worst at 134217728 B)", done.stdout)
        for name in ("sendrecv", "reduce", "gather", "scatter"):
            self.assertIn(f"{name} out of place: busbw ratio", done.stdout)
        self.assertIn("splitstep's checks: 70 cases of these collectives", done.stdout)


if __name__ == "__main__":
    unittest.main()
