"""splitstep-analysis compare on synthetic result files whose samples are drawn with a known
change, and compare --consistency on made-up runs."""
import csv
import os
import unittest
from unittest import mock

import numpy as np

from splitstep_analysis import compare_stats
from splitstep_analysis.compare import consistency, decide, medians_by_key, parse_threshold
from splitstep_analysis.compare_stats import mann_whitney_u, smallest_p
from splitstep_analysis.schema import BadInput, read_results
from support import FilesTestCase, run_command


def case(name, per_rank_values, suite="matmul", series="mm", skipped=False):
    """A case of the documented schema with the given samples per rank (seconds)."""
    entry = {"suite": suite, "case": name, "series": series, "part_of": "", "unit": "s",
             "clock": "device (CUDA events)", "params": {}, "notes": [], "warnings": [],
             "skipped": skipped, "rates": {}, "check": {"checked": 0, "wrong": 0}, "ranks": []}
    if skipped:
        entry["notes"] = ["skipped: not supported here"]
        return entry
    medians = [float(np.median(v)) for v in per_rank_values]
    entry["across_ranks"] = {"n": len(medians), "min": min(medians),
                             "median": float(np.median(medians)), "max": max(medians)}
    entry["slowest_rank"] = int(np.argmax(medians))
    entry["ranks"] = [{"rank": r, "values": [float(x) for x in values]}
                      for r, values in enumerate(per_rank_values)]
    return entry


def document(cases, world_size=2):
    return {"schema": "splitstep.results/1",
            "metadata": {"world_size": world_size, "git_revision": "abc123",
                         "started_utc": "2026-12-01T00:00:00Z"},
            "plan": {}, "ranks": [], "cases": cases, "derived": []}


def draw(seed, scale=1.0, n=200, ranks=2, median=1e-3, noise=0.01):
    """Per-rank samples around `median` * `scale`, lognormal with a relative spread `noise`."""
    rng = np.random.default_rng(seed)
    return [median * scale * rng.lognormal(0.0, noise, n) for _ in range(ranks)]


def stretches(seed, levels, n=400, median=1e-3, noise=0.02):
    """One rank's samples in the order taken: equal stretches of the run at `levels` times
    `median`, lognormal with a relative spread `noise` around each."""
    rng = np.random.default_rng(seed)
    scale = np.repeat(np.asarray(levels, dtype=float), -(-n // len(levels)))[:n]
    return median * scale * rng.lognormal(0.0, noise, n)


class StatisticsTest(unittest.TestCase):
    def test_mann_whitney_matches_known_values(self):
        # Exact distribution, no ties: U = 2 of C(11, 5) = 462 orderings, p = 2 * 4 / 462.
        u, p = mann_whitney_u([1.5, 2.5, 3.5, 0.5, 4.5], [5.1, 6.1, 7.1, 8.1, 3.0, 9.1])
        self.assertEqual(u, 2.0)
        self.assertAlmostEqual(p, 8 / 462, places=12)
        # Ties: normal approximation with tie and continuity correction (scipy: 0.0252298...).
        u, p = mann_whitney_u([1, 2, 2, 3, 5, 5, 6, 7, 8, 8, 9, 9],
                              [3, 4, 4, 6, 7, 9, 9, 10, 11, 12, 12, 13, 14])
        self.assertEqual(u, 36.5)
        self.assertAlmostEqual(p, 0.025229800370162883, places=10)
        # Samples wholly apart, three against three: the smallest p, 2 / C(6, 3).
        self.assertAlmostEqual(mann_whitney_u([1, 2, 3], [4, 5, 6])[1], 0.1)
        self.assertEqual(mann_whitney_u([1, 1, 1], [1, 1])[1], 1.0)

    def test_smallest_p_says_when_the_test_can_decide(self):
        self.assertAlmostEqual(smallest_p(5, 5), 2 / 252)
        self.assertGreater(smallest_p(4, 4), 0.01)
        self.assertLess(smallest_p(5, 5), 0.01)
        self.assertEqual(smallest_p(3000, 3000), 0.0)  # no overflow

    def test_threshold_is_a_percentage(self):
        self.assertAlmostEqual(parse_threshold("5%"), 0.05)
        self.assertAlmostEqual(parse_threshold("2.5"), 0.025)
        for bad in ("0", "100%", "-3", "five"):
            with self.assertRaises(ValueError):
                parse_threshold(bad)

    def test_decide_on_samples(self):
        self.assertEqual(decide([draw(1)], [draw(2, 1.10)], 0.05, 0.01)["verdict"], "slower")
        self.assertEqual(decide([draw(1)], [draw(2, 0.90)], 0.05, 0.01)["verdict"], "faster")
        self.assertEqual(decide([draw(1)], [draw(2)], 0.05, 0.01)["verdict"], "same")
        # 3% slower: beyond a 2% threshold, within a 5% one.
        self.assertEqual(decide([draw(1)], [draw(2, 1.03)], 0.02, 0.01)["verdict"], "slower")
        self.assertEqual(decide([draw(1)], [draw(2, 1.03)], 0.05, 0.01)["verdict"], "same")
        # 5% slower with a 5% threshold: the interval straddles the threshold.
        result = decide([draw(1)], [draw(2, 1.05)], 0.05, 0.01)
        self.assertEqual(result["verdict"], "unclear")
        self.assertLess(result["ci_low"], 1.05)
        self.assertGreater(result["ci_high"], 1.05)
        # 3% slower in wide noise: the median ratio lies within 5%, its interval does not.
        result = decide([draw(1, n=50, noise=0.1)], [draw(2, 1.03, n=50, noise=0.1)], 0.05,
                        0.01)
        self.assertLess(result["ratio"], 1.05)
        self.assertEqual((result["verdict"], result["note"]), ("unclear", "interval crosses +5%"))

    def test_an_interval_beyond_the_threshold_needs_a_significant_test(self):
        # Rank 1 changes by a third, rank 0 not at all: the reported median (over the two ranks'
        # medians) moves by 25-33% with a tight interval, but ten samples a rank are too few for
        # the rank test to tell the pooled samples apart.
        rng = np.random.default_rng(5)

        def ranks(slow):
            return [1e-3 * rng.lognormal(0, 0.01, 10), slow * 1e-3 * rng.lognormal(0, 0.01, 10)]

        for baseline, candidate in ((ranks(3), ranks(2)), (ranks(2), ranks(3))):
            result = decide([baseline], [candidate], 0.05, 0.01)
            self.assertGreater(abs(result["ratio"] - 1), 0.2)
            self.assertTrue(result["ci_low"] > 1.05 or result["ci_high"] < 0.95, result)
            self.assertGreater(result["p_value"], 0.01)
            self.assertEqual(result["verdict"], "unclear")
            self.assertIn("but p = ", result["note"])

    def test_medians_are_the_reported_ones(self):
        # Pooled, the baseline's 15 samples have median 8; the report's figure is 7.
        result = decide([[[1.0, 2.0, 3.0, 4.0, 100.0], [10.0, 11.0, 12.0, 13.0, 14.0],
                          [5.0, 6.0, 7.0, 8.0, 9.0]]],
                        [[[2.0] * 5, [24.0] * 5, [14.0] * 5]], 0.05, 0.01)
        self.assertEqual(result["baseline_median_s"], 7.0)  # median of 3, 12, 7
        self.assertEqual(result["candidate_median_s"], 14.0)
        self.assertEqual(result["ratio"], 2.0)


    def test_the_block_bootstrap_draws_whole_batches(self):
        # The vectorised replicates equal the plain reading of the rule: split the samples into
        # BATCHES contiguous batches, draw BATCHES of them, take the median of their union.
        for n in (2 * compare_stats.BATCHES, 2 * compare_stats.BATCHES + 3, 1001):
            values = np.random.default_rng(n).normal(size=n)
            got = compare_stats._rank_medians(values, 300, np.random.default_rng(7))
            batches = np.array_split(values, compare_stats.BATCHES)
            picks = np.random.default_rng(7).integers(0, compare_stats.BATCHES,
                                                      size=(300, compare_stats.BATCHES))
            want = [np.median(np.concatenate([batches[i] for i in row])) for row in picks]
            np.testing.assert_allclose(got, want, err_msg=f"n = {n}")

    def test_a_regime_switch_within_a_run_is_not_a_regression(self):
        # The candidate's middle three quarters sit 25% higher, its first and last eighth at the
        # baseline's level. Resampled in eighths, one replicate in 37 draws the two low eighths
        # five times or more and has its median at the baseline's level: the interval reaches
        # down to no change. Resampled sample by sample, every replicate lands 25% higher.
        base = [[stretches(1, [1.0])]]
        switch = [[stretches(2, [1.0] + [1.25] * 6 + [1.0])]]
        result = decide(base, switch, 0.05, 0.01)
        self.assertGreater(result["ratio"], 1.2)
        self.assertLess(result["p_value"], 0.01)
        self.assertLess(result["ci_low"], 1.05)
        self.assertEqual((result["verdict"], result["note"]), ("unclear", "interval crosses +5%"))
        with mock.patch.object(compare_stats, "BATCHES", 10 ** 9):  # every rank too short: iid
            self.assertEqual(decide(base, switch, 0.05, 0.01)["verdict"], "slower")
        # 25% higher all through the run: slower.
        result = decide(base, [[stretches(3, [1.25])]], 0.05, 0.01)
        self.assertEqual(result["verdict"], "slower")
        self.assertGreater(result["ci_low"], 1.2)

    def test_runs_apart_count_in_the_interval(self):
        # Two baseline runs 8% apart: a candidate between them is no regression, though against
        # the first run alone it is 7% slower with a tight interval.
        first, second = [stretches(1, [1.0])], [stretches(2, [1.08])]
        between = [[stretches(3, [1.07])]]
        self.assertEqual(decide([first], between, 0.05, 0.01)["verdict"], "slower")
        result = decide([first, second], between, 0.05, 0.01)
        self.assertAlmostEqual(result["baseline_median_s"], 1.04e-3, delta=0.002e-3)
        self.assertLess(result["ci_low"], 1.0)
        self.assertGreater(result["ci_high"], 1.05)
        self.assertEqual(result["verdict"], "unclear")
        self.assertEqual(result["n_baseline"], 800)
        # 30% above both baseline runs: slower, and a second candidate run changes nothing.
        above = [stretches(4, [1.08 * 1.3])], [stretches(5, [1.08 * 1.3])]
        for candidate in ([above[0]], list(above)):
            result = decide([first, second], candidate, 0.05, 0.01)
            self.assertEqual(result["verdict"], "slower")
            self.assertGreater(result["ci_low"], 1.25)


class CompareCommandTest(FilesTestCase):
    def run_compare(self, *args, process=False):
        return run_command("compare", *args, process=process)

    def row(self, out, name):
        return [line for line in out.splitlines() if f" {name} " in line][0]

    def test_a_candidate_ten_percent_slower_fails(self):
        base = self.write("base.json", document([case("bf16 n=8192", draw(1)),
                                                 case("fp32 n=8192", draw(3, median=2e-2))]))
        cand = self.write("cand.json", document([case("bf16 n=8192", draw(2, 1.10)),
                                                 case("fp32 n=8192", draw(4, median=2e-2))]))
        result = self.run_compare(base, cand, process=True)  # as a CI job runs it
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        row = self.row(result.stdout, "bf16 n=8192")
        self.assertTrue(row.endswith("slower"), row)
        self.assertRegex(row, r"\+(9\.\d\d|10\.\d\d)%")
        self.assertTrue(self.row(result.stdout, "fp32 n=8192").endswith("same"))
        self.assertIn("2 compared: 0 faster, 1 slower, 1 same, 0 unclear; 0 only in one file",
                      result.stdout)

    def test_a_faster_candidate_passes(self):
        base = self.write("base.json", document([case("bf16 n=8192", draw(1))]))
        cand = self.write("cand.json", document([case("bf16 n=8192", draw(2, 0.85))]))
        result = self.run_compare(base, cand)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertTrue(self.row(result.stdout, "bf16 n=8192").endswith("faster"))

    def test_two_draws_of_one_distribution_are_the_same(self):
        base = self.write("base.json", document([case("bf16 n=8192", draw(1, noise=0.03))]))
        cand = self.write("cand.json", document([case("bf16 n=8192", draw(2, noise=0.03))]))
        result = self.run_compare(base, cand)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertTrue(self.row(result.stdout, "bf16 n=8192").endswith("same"))
        self.assertIn("0 slower, 1 same", result.stdout)

    def test_tiny_samples_are_unclear(self):
        # Three samples a side: even samples wholly apart give p = 0.1, never below 0.01.
        base = self.write("base.json", document([case("slow", [[1.00e-3, 1.01e-3, 1.02e-3]]),
                                                 case("flat", [[1.00e-3, 1.001e-3, 1.002e-3]])],
                                                world_size=1))
        cand = self.write("cand.json", document([case("slow", [[1.10e-3, 1.11e-3, 1.12e-3]]),
                                                 case("flat", [[1.00e-3, 1.001e-3, 1.002e-3]])],
                                                world_size=1))
        result = self.run_compare(base, cand)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        for name in ("slow", "flat"):
            self.assertIn("unclear (too few samples (3 and 3) for p < 0.01)",
                          self.row(result.stdout, name))
        self.assertIn("0 slower, 0 same, 2 unclear", result.stdout)
        self.assertEqual(self.run_compare(base, cand, "--fail-on-unclear").returncode, 1)

    def test_missing_and_skipped_cases_are_listed_not_compared(self):
        base = self.write("base.json", document([
            case("both", draw(1)), case("gone", draw(1)),
            case("mpi in place", [], suite="reduce_scatter", series="reduce_scatter",
                 skipped=True)]))
        cand = self.write("cand.json", document([
            case("both", draw(2)), case("new", draw(2)),
            case("mpi in place", draw(2), suite="reduce_scatter", series="reduce_scatter")]))
        result = self.run_compare(base, cand, "--csv", os.path.join(self.dir.name, "out.csv"))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        out = result.stdout
        self.assertIn("skipped (not compared):\n  reduce_scatter / mpi in place / reduce_scatter "
                      "(skipped in the baseline: skipped: not supported here)", out)
        self.assertIn("only in baseline:\n  matmul / gone / mm", out)
        self.assertIn("only in candidate:\n  matmul / new / mm", out)
        self.assertIn("1 compared: 0 faster, 0 slower, 1 same, 0 unclear; 2 only in one file "
                      "(1 baseline, 1 candidate); 1 skipped", out)
        with open(os.path.join(self.dir.name, "out.csv")) as f:
            rows = {r["case"]: r for r in csv.DictReader(f)}
        self.assertEqual({k: r["verdict"] for k, r in rows.items()},
                         {"both": "same", "gone": "only in baseline", "new": "only in candidate",
                          "mpi in place": "skipped"})
        self.assertLess(float(rows["both"]["ci_low"]), 1.0)
        self.assertGreater(float(rows["both"]["ci_high"]), 1.0)

    def test_per_rank_finds_the_rank_that_slowed_down(self):
        base = self.write("base.json", document([case("bf16 n=8192", draw(1))]))
        fast, _ = draw(2)
        _, slow = draw(3, 1.20)
        cand = self.write("cand.json", document([case("bf16 n=8192", [fast, slow])]))
        result = self.run_compare(base, cand, "--per-rank")
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        lines = [line for line in result.stdout.splitlines() if " bf16 n=8192 " in line]
        self.assertEqual(len(lines), 2)
        self.assertRegex(lines[0], r" 0 .* same$")
        self.assertRegex(lines[1], r" 1 .* slower$")

    def test_output_is_deterministic(self):
        base = self.write("base.json", document([case("a", draw(1, noise=0.05))]))
        cand = self.write("cand.json", document([case("a", draw(2, 1.04, noise=0.05))]))
        first, second = self.run_compare(base, cand), self.run_compare(base, cand)
        self.assertEqual(first.stdout, second.stdout)

    def test_several_candidates_fail_when_any_is_slower(self):
        base = self.write("base.json", document([case("a", draw(1))]))
        same = self.write("same.json", document([case("a", draw(2))]))
        slow = self.write("slow.json", document([case("a", draw(3, 1.2))]))
        result = self.run_compare(base, same, slow)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout.count("baseline:  "), 2)

    def test_comma_joined_runs_form_one_side(self):
        runs = [self.write(f"base{i}.json", document([case("bf16 n=8192", draw(i, scale))]))
                for i, scale in ((1, 1.0), (2, 1.08))]
        between = self.write("between.json", document([case("bf16 n=8192", draw(3, 1.07))]))
        above = self.write("above.json", document([case("bf16 n=8192", draw(4, 1.4))]))
        alone = self.run_compare(runs[0], between)
        self.assertEqual(alone.returncode, 1, alone.stdout + alone.stderr)
        result = self.run_compare(",".join(runs), between, above, process=True)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        first, second = result.stdout.split("\n\nbaseline:")
        self.assertRegex(first, rf"^baseline:  {runs[0]} \(2 ranks, abc123, [^)]*\)\n"
                                rf" {{11}}{runs[1]} \(2 ranks, abc123, [^)]*\)\n"
                                rf"candidate: {between} \(")
        self.assertIn("bootstrapped over runs and over contiguous blocks of each run's samples",
                      first)
        self.assertRegex(self.row(first, "bf16 n=8192"), r"unclear \(interval crosses [+-]5%\)$")
        self.assertTrue(self.row(second, "bf16 n=8192").endswith("slower"))

    def test_runs_columns_and_cases_not_in_every_run(self):
        base = [self.write("base1.json", document([
                    case("both", draw(1)), case("half", draw(1)),
                    case("once skipped", [], skipped=True)])),
                self.write("base2.json", document([
                    case("both", draw(2)), case("once skipped", draw(2))]))]
        cand = self.write("cand.json", document([case("both", draw(3)), case("half", draw(3)),
                                                 case("once skipped", draw(3))]))
        out = os.path.join(self.dir.name, "out.csv")
        result = self.run_compare(",".join(base), cand, "--csv", out)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("skipped (not compared):\n  matmul / half / mm (not in baseline run 2)\n"
                      "  matmul / once skipped / mm (skipped in baseline run 1: skipped: not "
                      "supported here)", result.stdout)
        self.assertIn("1 compared: 0 faster, 0 slower, 1 same, 0 unclear; 0 only in one file "
                      "(0 baseline, 0 candidate); 2 skipped", result.stdout)
        with open(out) as f:
            rows = {r["case"]: r for r in csv.DictReader(f)}
        self.assertEqual({k: (r["runs_baseline"], r["runs_candidate"], r["verdict"])
                          for k, r in rows.items()},
                         {"both": ("2", "1", "same"), "half": ("1", "1", "skipped"),
                          "once skipped": ("1", "1", "skipped")})
        self.assertEqual({(r["baseline"], r["candidate"]) for r in rows.values()},
                         {(",".join(base), cand)})
        self.assertEqual(float(rows["both"]["n_baseline"]), 800)

    def test_a_case_skipped_in_one_run_stands_for_each_rank(self):
        # Case b is measured on both sides: with nothing compared, the status would be 2.
        base = self.write("base.json", document([case("a", [], skipped=True),
                                                 case("b", draw(2))]))
        cand = self.write("cand.json", document([case("a", draw(1)), case("b", draw(3))]))
        result = self.run_compare(base, cand, "--per-rank")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("skipped (not compared):\n"
                      "  matmul / a / mm rank 0 (skipped in the baseline: skipped: not supported "
                      "here)\n  matmul / a / mm rank 1 (skipped in the baseline: ", result.stdout)
        self.assertIn("0 only in one file (0 baseline, 0 candidate); 2 skipped", result.stdout)

    def test_malformed_input_is_one_line_and_status_2(self):
        good = self.write("good.json", document([case("a", draw(1))]))
        bad_values = document([case("a", draw(1))])
        bad_values["cases"][0]["ranks"][0]["values"][3] = "fast"
        twice = document([case("a", draw(1)), case("a", draw(2))])
        inputs = {
            "not json": self.write("text.json", "{ this is not json"),
            "other schema": self.write("other.json", {"schema": "something/2", "cases": []}),
            "v2 without a catalogue": self.write("v2.json", {"schema": "splitstep.results/2",
                                                             "metadata": {}, "cases": []}),
            "no cases": self.write("nocases.json", {"schema": "splitstep.results/1",
                                                    "metadata": {}}),
            "text samples": self.write("values.json", bad_values),
            "a case twice": self.write("twice.json", twice),
            "no file": os.path.join(self.dir.name, "missing.json"),
        }
        for index, (what, path) in enumerate(inputs.items()):
            for args in ((good, path), (path, good)):
                result = self.run_compare(*args, process=index == 0)
                self.assertEqual(result.returncode, 2, what)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                self.assertIn(path, result.stderr, what)
                self.assertEqual(result.stdout, "", what)
        for index, options in enumerate((["--threshold", "0%"], ["--alpha", "2"],
                                         ["--resamples", "x"])):
            result = self.run_compare(good, good, *options, process=index == 0)
            self.assertEqual(result.returncode, 2, options)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        # Runs joined by commas: no empty element, no file twice, a bad file named.
        for index, args in enumerate(([good, f"{good},"], [f",{good}", good],
                                      [good, f"{good},,{good}"], [f"{good},{good}", good],
                                      [good, ","])):
            result = self.run_compare(*args, process=index == 0)
            self.assertEqual(result.returncode, 2, args)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
            self.assertEqual(result.stdout, "", args)
        result = self.run_compare(f"{good},{inputs['not json']}", good)
        self.assertEqual(result.returncode, 2)
        self.assertIn(inputs["not json"], result.stderr)


def consistency_case(name, median, cvs, part_of=""):
    return {"suite": "matmul", "case": name, "series": "mm", "part_of": part_of,
            "skipped": False, "params": {}, "across_ranks": {"median": median},
            "ranks": [{"rank": r, "summary": {"cv": cv}} for r, cv in enumerate(cvs)]}


class WhatCompareCannotKnowTest(FilesTestCase):
    def on(self, name, cases, devices):
        doc = document(cases)
        doc["ranks"] = [dict(rank=r, **device) for r, device in enumerate(devices)]
        return self.write(name, doc)

    H200 = {"device": "cuda:0", "device_name": "NVIDIA H200"}
    H100 = {"device": "cuda:0", "device_name": "NVIDIA H100 80GB HBM3"}
    CPU = {"device": "cpu"}

    def test_a_gpu_run_against_a_cpu_run_is_warned_about(self):
        base = self.on("gpu.json", [case("bf16 n=8192", draw(1))], [self.H200, self.H200])
        cand = self.on("cpu.json", [case("bf16 n=8192", draw(2))], [self.CPU, self.CPU])
        result = run_command("compare", base, cand)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("warning: the baseline ran on GPU ranks, the candidate on CPU ranks: their "
                      "times measure different machines\n", result.stdout)

    def test_other_gpu_models_are_warned_about_and_the_same_ones_are_not(self):
        base = self.on("h200.json", [case("bf16 n=8192", draw(1))], [self.H200, self.H200])
        cand = self.on("h100.json", [case("bf16 n=8192", draw(2))], [self.H100, self.H100])
        same = self.on("h200-2.json", [case("bf16 n=8192", draw(3))], [self.H200, self.H200])
        self.assertIn("warning: the GPUs differ (NVIDIA H200 | NVIDIA H100 80GB HBM3): a "
                      "difference is the hardware's as much as the change's",
                      run_command("compare", base, cand).stdout)
        self.assertNotIn("warning:", run_command("compare", base, same).stdout)

    def test_nothing_compared_is_status_2(self):
        base = self.write("base.json", document([case("bf16 n=4096", draw(1))]))
        cand = self.write("cand.json", document([case("bf16 n=8192", draw(2))]))
        result = run_command("compare", base, cand, process=True)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertEqual(result.stderr, f"splitstep-analysis compare: nothing compared: no case "
                                        f"of {base} was measured in {cand}\n")
        # The table, with the cases found on one side only, is printed first.
        self.assertIn("only in baseline:\n  matmul / bf16 n=4096 / mm", result.stdout)

    def test_one_run_a_side_says_what_a_verdict_cannot_tell(self):
        base = self.write("base.json", document([case("bf16 n=8192", draw(1))]))
        slower = self.write("slower.json", document([case("bf16 n=8192", draw(2, 1.10))]))
        note = "note: one run a side: a verdict cannot tell the change from the variation"
        self.assertIn(note, run_command("compare", base, slower).stdout)
        base_2 = self.write("base-2.json", document([case("bf16 n=8192", draw(3))]))
        slower_2 = self.write("slower-2.json", document([case("bf16 n=8192", draw(4, 1.10))]))
        result = run_command("compare", f"{base},{base_2}", f"{slower},{slower_2}")
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertNotIn(note, result.stdout)
        # Nothing faster or slower: nothing to caution about.
        same = self.write("same.json", document([case("bf16 n=8192", draw(5))]))
        self.assertNotIn(note, run_command("compare", base, same).stdout)


class ConsistencyTest(FilesTestCase):
    def setUp(self):
        super().setUp()
        runs = [
            [consistency_case("quiet", 1.000, [0.001, 0.004]),
             consistency_case("moved", 1.0, [0.01]), consistency_case("noisy", 1.0, [0.05]),
             consistency_case("only here", 1.0, [0.0]),
             consistency_case("quiet", 1.0, [0.0], part_of="step") | {"series": "forward"}],
            [consistency_case("quiet", 1.009, [0.002, 0.003]),
             consistency_case("moved", 1.02, [0.01]), consistency_case("noisy", 1.5, [0.01])],
        ]
        self.paths = [self.write(f"run{i}.json", {"schema": "splitstep.results/1",
                                                  "metadata": {}, "cases": cases})
                      for i, cases in enumerate(runs)]

    def test_the_spread_is_the_largest_over_ranks_and_parts_are_left_out(self):
        first = medians_by_key(read_results(self.paths[0]))
        self.assertEqual(first[("matmul", "quiet", "mm")], (1.0, 0.004))
        self.assertEqual(len(first), 4)

    def test_quiet_cases_are_judged_and_noisy_ones_are_not(self):
        rows = consistency(*(medians_by_key(read_results(p)) for p in self.paths), 0.02, 0.01)
        verdicts = {row[1]: row[-1] for row in rows}
        self.assertEqual(verdicts, {"quiet": "ok", "moved": "OUTSIDE", "noisy": "noisy"})
        self.assertAlmostEqual(rows[0][4], 1.009)

    def test_the_command_line_sums_up_and_fails_on_a_disagreement(self):
        result = run_command("compare", "--consistency", *self.paths, process=True)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("1 of 2 cases with spread below 2% agree within 1% (1 noisier cases not "
                      "judged)", result.stdout)
        result = run_command("compare", "--consistency", *self.paths, "--within", "0.05")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("2 of 2 cases with spread below 2% agree within 5%", result.stdout)

    def test_two_files_only_and_a_spread_present(self):
        for args in ([self.paths[0], self.paths[1], self.paths[1]],
                     [",".join(self.paths), self.paths[1]], ["--spread", "2", *self.paths]):
            result = run_command("compare", "--consistency", *args)
            self.assertEqual(result.returncode, 2, args)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        bare = self.write("bare.json", {"schema": "splitstep.results/1", "metadata": {},
                                        "cases": [consistency_case("quiet", 1.0, [0.0]) |
                                                  {"ranks": [{"rank": 0}]}]})
        with self.assertRaises(BadInput):
            medians_by_key(read_results(bare), bare)
        result = run_command("compare", "--consistency", bare, self.paths[0])
        self.assertEqual(result.returncode, 2)
        self.assertIn("has no ranks[].summary.cv", result.stderr)


if __name__ == "__main__":
    unittest.main()
