"""splitstep-analysis compare says why: what differs between the runs, refusals of comparisons
that make no sense, filters by suite and case, and the markdown and JUnit XML a CI job reads."""
import os
import re
import unittest
import xml.etree.ElementTree as ElementTree

from splitstep_analysis.differences import run_differences
from support import ROOT, FilesTestCase, run_command
from test_compare import case, document, draw

COLLECTIVES = os.path.join(ROOT, "results", "2026-11-30-h200x2-collectives")
PLAIN = os.path.join(COLLECTIVES, "h200x2-allreduce.json")
GRAPH = os.path.join(COLLECTIVES, "h200x2-allreduce-graph.json")
STEP = os.path.join(ROOT, "results", "2026-11-30-h200x2-step")


class DifferencesTest(FilesTestCase):
    def test_graph_against_plain_says_that_cuda_graph_differed(self):
        # The committed pair: the same allreduce, captured in a CUDA graph or launched plainly.
        result = run_command("compare", PLAIN, GRAPH)
        self.assertEqual(result.returncode, 1, result.stderr)  # 1 MiB and 4 MiB slower
        lines = result.stdout.splitlines()
        self.assertEqual(lines[2], "differs:")
        self.assertIn("  plan cuda-graph: off | on", lines)
        # What differs comes before the table.
        self.assertLess(lines.index("  plan cuda-graph: off | on"),
                        next(i for i, line in enumerate(lines) if line.startswith("suite ")))

    def test_the_differences_of_plans_versions_gpus_ranks_and_environment(self):
        a = document([case("bf16 n=4096", draw(1))])
        b = document([case("bf16 n=4096", draw(2))], world_size=4)
        a["plan"], b["plan"] = {"cuda-graph": "false", "bytes": "8"}, {"cuda-graph": "true"}
        a["metadata"].update(nccl_version="2.28.3", environment={
            "NCCL_ALGO": "Ring", "OMPI_MCA_ess_base_jobid": "1"})
        b["metadata"].update(nccl_version="2.29.1", environment={"OMPI_MCA_ess_base_jobid": "2"})
        b["ranks"] = [{"rank": 0, "device_name": "NVIDIA H200"}]
        self.assertEqual(run_differences([a], [b]), [
            ("ranks", "world size", "2", "4"),
            ("GPUs", "devices", "none", "NVIDIA H200"),
            ("version", "nccl_version", "2.28.3", "2.29.1"),
            ("plan", "cuda-graph", "off", "on"),
            ("plan", "bytes", "8", "(none)"),
            ("environment", "NCCL_ALGO", "Ring", "(none)")])  # the launcher's job id left out
        self.assertEqual(run_differences([a], [a]), [])
        # A side's runs that disagree show both values.
        c = {**a, "plan": {"cuda-graph": "true", "bytes": "8"}}
        self.assertIn(("plan", "cuda-graph", "off / on", "on"),
                      run_differences([a, c], [b]))

    def test_typed_plan_values_differ_as_the_options_take_them(self):
        a = document([case("bf16 n=4096", draw(1))])
        b = document([case("bf16 n=4096", draw(2))])
        a["plan"] = {"cuda-graph": False, "bytes": [8, 1024], "timeout": 300.0, "device": "auto"}
        b["plan"] = {"cuda-graph": True, "bytes": [8], "timeout": 300.0, "device": "auto"}
        self.assertEqual(run_differences([a], [b]), [
            ("plan", "cuda-graph", "off", "on"),
            ("plan", "bytes", "8,1024", "8")])
        # A typed plan beside one written as text before: only what changed differs.
        text = {**b, "plan": {"cuda-graph": "false", "bytes": "8,1024", "timeout": "300",
                              "device": "auto"}}
        self.assertEqual(run_differences([a], [text]), [])

    def test_nothing_differs_is_said(self):
        a = self.write("a.json", document([case("bf16 n=4096", draw(1))]))
        b = self.write("b.json", document([case("bf16 n=4096", draw(2))]))
        result = run_command("compare", a, b)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("differs:   nothing in the plans, versions, GPUs and environment",
                      result.stdout)


class RefusalTest(FilesTestCase):
    def test_collective_and_step_times_across_rank_counts_are_refused(self):
        # 1 rank against 2: the comm series read "+36988% slower" before.
        one, two = os.path.join(STEP, "step-np1.json"), os.path.join(STEP, "step-np2-final.json")
        result = run_command("compare", one, two)
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stdout, "")
        self.assertEqual(len(result.stderr.splitlines()), 1)
        self.assertRegex(result.stderr, r"different rank counts \(.*step-np1\.json on 1, "
                                        r".*step-np2-final\.json on 2\), and the times of step ")
        # The GEMMs do not depend on it: --suite picks them; --allow-ranks takes everything.
        picked = run_command("compare", one, two, "--suite", "matmul")
        self.assertEqual(picked.returncode, 0, picked.stderr)
        self.assertIn("ranks world size: 1 | 2", picked.stdout)
        self.assertNotIn(" step ", picked.stdout)
        forced = run_command("compare", one, two, "--allow-ranks", "--resamples", "100")
        self.assertIn(forced.returncode, (0, 1), forced.stderr)
        self.assertRegex(forced.stdout, r"\nstep +mlp bf16 overlap +comm ")

    def test_runs_that_share_no_suite_are_refused(self):
        a = self.write("a.json", document([case("bf16 n=4096", draw(1))]))
        b = self.write("b.json", document([case("nccl fp32 8 B", draw(2), suite="allreduce",
                                                series="allreduce")]))
        result = run_command("compare", a, b)
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stderr.strip(),
                         f"splitstep-analysis compare: {a} and {b} share no suite (baseline: "
                         "matmul; candidate: allreduce): nothing to compare")

    def test_filters_that_match_nothing_and_bad_patterns(self):
        a = self.write("a.json", document([case("bf16 n=4096", draw(1))]))
        result = run_command("compare", a, a, "--suite", "membw")
        self.assertEqual((result.returncode, result.stderr.strip()),
                         (2, f"splitstep-analysis compare: {a}: no case matches --suite/--case"))
        bad = run_command("compare", a, a, "--case", "(")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("'(' is not a regular expression", bad.stderr)


class FiltersTest(FilesTestCase):
    def setUp(self):
        super().setUp()
        cases = [case("bf16 n=4096", draw(1)), case("fp32 n=4096", draw(2)),
                 case("nccl fp32 8 B", draw(3), suite="allreduce", series="allreduce")]
        self.a = self.write("a.json", document(cases))
        self.b = self.write("b.json", document(cases))

    def compared(self, *options):
        result = run_command("compare", self.a, self.b, *options, "--resamples", "100")
        self.assertEqual(result.returncode, 0, result.stderr)
        return re.findall(r"^(matmul|allreduce) +(\S+ \S+)", result.stdout, re.MULTILINE)

    def test_by_suite_substring_and_regular_expression(self):
        self.assertEqual(len(self.compared()), 3)
        self.assertEqual(self.compared("--suite", "allreduce"), [("allreduce", "nccl fp32")])
        self.assertEqual(self.compared("--case", "fp32"),
                         [("matmul", "fp32 n=4096"), ("allreduce", "nccl fp32")])
        self.assertEqual(self.compared("--case", "^(bf16|fp32) n="),
                         [("matmul", "bf16 n=4096"), ("matmul", "fp32 n=4096")])
        self.assertEqual(self.compared("--suite", "matmul,allreduce", "--case", "bf16"),
                         [("matmul", "bf16 n=4096")])


class CiFormatsTest(FilesTestCase):
    def test_markdown_and_junit_of_a_slower_candidate(self):
        cases = [case("bf16 n=4096", draw(1)), case("fp32 n=4096", draw(2))]
        slower = [case("bf16 n=4096", draw(3, scale=1.10)), case("fp32 n=4096", draw(4))]
        a = self.write("a.json", document(cases + [case("fp16 n=4096", draw(5))]))
        b = document(slower)
        b["plan"] = {"matmul-dtypes": "bf16,fp32"}
        b = self.write("b.json", b)
        md, xml = (os.path.join(self.dir.name, name) for name in ("c.md", "c.xml"))
        result = run_command("compare", a, b, "--markdown", md, "--junit", xml)
        self.assertEqual(result.returncode, 1, result.stderr)
        with open(md) as f:
            text = f.read()
        self.assertTrue(text.startswith(f"## {b} against {a}\n"))
        self.assertRegex(text, r"\| plan +\| matmul-dtypes \| \(none\) +\| bf16,fp32 +\|")
        self.assertIn("**0 faster**, **1 slower**, **1 same**, **0 unclear**", text)
        self.assertRegex(text, r"\| matmul +\| bf16 n=4096 / mm +\| .* \| \+1\d\.\d\d% .*\| slower")
        self.assertRegex(text, r"\| fp16 n=4096 / mm +\|.*\| only in baseline")
        suite = ElementTree.parse(xml).getroot().find("testsuite")
        self.assertEqual({k: suite.get(k) for k in ("tests", "failures", "skipped")},
                         {"tests": "3", "failures": "1", "skipped": "1"})
        tests = {t.get("name"): t for t in suite.iter("testcase")}
        self.assertEqual(set(tests), {"bf16 n=4096 / mm", "fp32 n=4096 / mm", "fp16 n=4096 / mm"})
        failure = tests["bf16 n=4096 / mm"].find("failure")
        self.assertEqual(failure.get("type"), "slower")
        self.assertRegex(failure.get("message"), r"^slower: .* \(\+1\d\.\d\d%, CI \[")
        self.assertIsNotNone(tests["fp16 n=4096 / mm"].find("skipped"))
        self.assertIsNone(tests["fp32 n=4096 / mm"].find("failure"))
        self.assertEqual(suite.find("properties/property").get("name"),
                         "differs: plan matmul-dtypes")

    def test_the_committed_comparison_as_junit(self):
        xml = os.path.join(self.dir.name, "c.xml")
        run_command("compare", PLAIN, GRAPH, "--junit", xml, "--fail-on-unclear")
        suite = ElementTree.parse(xml).getroot().find("testsuite")
        self.assertEqual(suite.get("tests"), "10")
        failed = [t.get("name") for t in suite.iter("testcase") if t.find("failure") is not None]
        frame_lines = run_command("compare", PLAIN, GRAPH).stdout
        flagged = re.findall(r"^allreduce +(nccl fp32 \d+ [KMG]?i?B) +allreduce .*"
                             r"(?:slower|unclear)", frame_lines, re.MULTILINE)
        self.assertEqual(failed, [f"{name} / allreduce" for name in flagged])
        self.assertGreater(len(failed), 0)


if __name__ == "__main__":
    unittest.main()
