"""splitstep-analysis time-to-answer on a made-up OUTDIR of the layout launch/verify time-to-answer
writes. The standard library only (CTest analysis_python_stdlib runs it under a bare python3)."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

from splitstep_analysis.schema import BadInput
from splitstep_analysis.time_to_answer import format_table, over_limits, parse_limit, run_row


def rank(number, rule, wall):
    return {"rank": number, "stop_rule": rule,
            "wall": dict(zip(["cold_start", "warm_up", "prepare", "sampling"], wall))}


def case(ranks, part_of="", skipped=False, series="allreduce", size=8):
    entry = {"suite": "allreduce", "case": f"nccl fp32 {size} B", "series": series,
             "part_of": part_of, "skipped": skipped, "ranks": ranks}
    if not skipped:
        entry["across_ranks"] = {"median": 1e-5}
    return entry


class TimeToAnswerTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        out = self.dir.name
        document = {"schema": "splitstep.results/1", "metadata": {"wall": {"start_up": 2.0,
                                          "suites": [{"suite": "allreduce", "seconds": 10.0}],
                                          "gather": 0.5}},
                    "cases": [case([rank(0, "converged", [0.5, 0.25, 0.25, 3.0]),
                                    rank(1, "converged", [9, 9, 9, 9])]),
                              case([rank(0, "noise-stable", [0.0, 0.25, 0.0, 4.0]),
                                    rank(1, "max-time", [9, 9, 9, 9])], size=1024),
                              # A step's phase repeats its whole's rule and time: not counted.
                              case([rank(0, "noise-stable", [9, 9, 9, 9])], part_of="step",
                                   series="forward"),
                              case([], skipped=True, series="skipped")]}
        with open(os.path.join(out, "allreduce-sweep.json"), "w") as f:
            json.dump(document, f)
        for name, seconds in (("allreduce-sweep", "14.00\n"), ("nccl-tests", "5.50\n")):
            with open(os.path.join(out, name + ".seconds"), "w") as f:
                f.write(seconds)

    def tearDown(self):
        self.dir.cleanup()

    def test_rules_are_counted_per_rank_and_time_is_rank_zeros(self):
        row = run_row(self.dir.name, "allreduce-sweep")
        self.assertEqual(row["cases"], 2)
        self.assertEqual((row["converged"], row["noise-stable"], row["max-time"]), (2, 1, 1))
        self.assertEqual(row["sampling"], 7.0)
        self.assertEqual(row["cold_start"], 0.5)
        self.assertEqual(row["warm_up"], 0.5)
        # The suites' 10 s less the Measurer's 8.25 s; 14 s less start-up, suites and gather.
        self.assertAlmostEqual(row["set_up_and_checks"], 1.75)
        self.assertAlmostEqual(row["launch"], 1.5)

    def write_run(self, name, cases, seconds="3.00\n"):
        document = {"schema": "splitstep.results/1",
                    "metadata": {"wall": {"start_up": 0.5, "gather": 0.0,
                                          "suites": [{"suite": "allreduce", "seconds": 2.0}]}},
                    "cases": cases}
        with open(os.path.join(self.dir.name, name + ".json"), "w") as f:
            json.dump(document, f)
        with open(os.path.join(self.dir.name, name + ".seconds"), "w") as f:
            f.write(seconds)

    def test_one_rank_and_a_sweeps_budget_are_counted(self):
        # One GPU: one rank per case; cases that stopped on their share of --sweep-time.
        self.write_run("quick", [case([rank(0, "sweep-time", [0.0, 0.0, 0.0, 0.5])]),
                                 case([rank(0, "sweep-time", [0.0, 0.0, 0.0, 0.25])], size=16),
                                 case([rank(0, "noise-target", [0.0, 0.0, 0.0, 0.25])], size=32)])
        row = run_row(self.dir.name, "quick")
        self.assertEqual((row["cases"], row["sweep-time"], row["noise-target"]), (3, 2, 1))
        self.assertEqual(row["sampling"], 1.0)
        # Columns are two spaces apart ("wall s" holds one).
        header, line = (re.split(r"\s{2,}", text.strip())
                        for text in format_table([row]).splitlines())
        self.assertEqual(line[header.index("sweep-time")], "2")
        self.assertEqual(line[header.index("noise-target")], "1")

    def test_every_rank_case_is_named_by_a_rule(self):
        # A rule the table does not know is refused rather than left out of the counts.
        self.write_run("quick", [case([rank(0, "converged", [0, 0, 0, 1]),
                                       rank(1, "budget", [0, 0, 0, 1])])])
        with self.assertRaisesRegex(BadInput, "case nccl fp32 8 B rank 1 stopped on 'budget'"):
            run_row(self.dir.name, "quick")

    def test_a_run_without_json_has_its_wall_time_only(self):
        row = run_row(self.dir.name, "nccl-tests")
        self.assertEqual(row["wall_s"], 5.5)
        self.assertIsNone(row["cases"])
        self.assertIsNone(run_row(self.dir.name, "quick"))  # not run

    def test_the_table_has_a_line_per_run(self):
        table = format_table([run_row(self.dir.name, "allreduce-sweep"),
                              run_row(self.dir.name, "nccl-tests")]).splitlines()
        self.assertEqual(len(table), 3)
        self.assertTrue(table[0].startswith("run"))
        self.assertEqual(table[1].split()[:3], ["allreduce-sweep", "14.0", "2"])
        self.assertEqual(table[2].split()[:3], ["nccl-tests", "5.5", "-"])

    def test_the_command_line_prints_the_table(self):
        out = subprocess.run([sys.executable, "-m", "splitstep_analysis", "time-to-answer",
                              self.dir.name], check=True, capture_output=True, text=True).stdout
        self.assertIn("allreduce-sweep", out)
        self.assertIn("nccl-tests", out)

    def test_limits_in_seconds_and_against_another_run(self):
        rows = [run_row(self.dir.name, "allreduce-sweep"), run_row(self.dir.name, "nccl-tests")]
        # 14 s against 5.5 s: 2.55x.
        self.assertEqual(over_limits(rows, [parse_limit("allreduce-sweep=3x:nccl-tests"),
                                            parse_limit("allreduce-sweep=14")]), [])
        self.assertEqual(over_limits(rows, [parse_limit("allreduce-sweep=2.5x:nccl-tests")]),
                         ["allreduce-sweep: 14.00 s, over 2.5x nccl-tests's (13.75 s)"])
        self.assertEqual(over_limits(rows, [parse_limit("allreduce-sweep=13.9")]),
                         ["allreduce-sweep: 14.00 s, over 13.9 s"])
        # A limit nothing can show was met fails too.
        self.assertEqual(over_limits(rows, [parse_limit("default=30")]),
                         ["default: no wall time to hold to 30 s"])
        for bad in ("default", "default=", "=3", "default=-1", "a=3x:", "a=fast"):
            with self.assertRaises(BadInput, msg=bad):
                parse_limit(bad)

    def test_the_command_line_exits_1_over_a_limit(self):
        command = [sys.executable, "-m", "splitstep_analysis", "time-to-answer", self.dir.name,
                   "allreduce-sweep", "nccl-tests"]
        within = subprocess.run(command + ["--at-most", "allreduce-sweep=3x:nccl-tests"],
                                capture_output=True, text=True)
        self.assertEqual(within.returncode, 0, within.stderr)
        self.assertIn("within every limit", within.stdout)
        over = subprocess.run(command + ["--at-most", "allreduce-sweep=2x:nccl-tests"],
                              capture_output=True, text=True)
        self.assertEqual(over.returncode, 1, over.stderr)
        self.assertIn("over its limit: allreduce-sweep: 14.00 s, over 2x nccl-tests's", over.stdout)

    def test_bad_input_is_one_line_and_status_2(self):
        with open(os.path.join(self.dir.name, "quick.seconds"), "w") as f:
            f.write("soon\n")
        with self.assertRaises(BadInput):
            run_row(self.dir.name, "quick")
        for args, message in (([self.dir.name, "quick"], "is not a number of seconds"),
                              ([self.dir.name, "absent"], "no NAME.seconds of absent"),
                              ([os.path.join(self.dir.name, "none")], "not a folder")):
            done = subprocess.run([sys.executable, "-m", "splitstep_analysis", "time-to-answer",
                                   *args], capture_output=True, text=True)
            self.assertEqual(done.returncode, 2, args)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertIn(message, done.stderr)


if __name__ == "__main__":
    unittest.main()
