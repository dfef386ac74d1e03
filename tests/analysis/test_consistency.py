"""analysis/consistency.py on two made-up runs."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ANALYSIS = os.path.join(os.path.dirname(__file__), "..", "..", "analysis")
sys.path.insert(0, ANALYSIS)

from consistency import cases_by_key, compare  # noqa: E402


def case(name, median, cvs, part_of=""):
    return {"suite": "matmul", "case": name, "series": "mm", "part_of": part_of,
            "skipped": False, "across_ranks": {"median": median},
            "ranks": [{"summary": {"cv": cv}} for cv in cvs]}


class ConsistencyTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.paths = []
        runs = [
            [case("quiet", 1.000, [0.001, 0.004]), case("moved", 1.0, [0.01]),
             case("noisy", 1.0, [0.05]), case("only here", 1.0, [0.0]),
             case("quiet", 1.0, [0.0], part_of="step")],
            [case("quiet", 1.009, [0.002, 0.003]), case("moved", 1.02, [0.01]),
             case("noisy", 1.5, [0.01])],
        ]
        for i, cases in enumerate(runs):
            path = os.path.join(self.dir.name, f"run{i}.json")
            with open(path, "w") as f:
                json.dump({"cases": cases}, f)
            self.paths.append(path)

    def tearDown(self):
        self.dir.cleanup()

    def test_the_spread_is_the_largest_over_ranks_and_parts_are_left_out(self):
        first = cases_by_key(self.paths[0])
        self.assertEqual(first[("matmul", "quiet", "mm")], (1.0, 0.004))
        self.assertEqual(len(first), 4)

    def test_quiet_cases_are_judged_and_noisy_ones_are_not(self):
        rows = compare(cases_by_key(self.paths[0]), cases_by_key(self.paths[1]), 0.02, 0.01)
        verdicts = {row[1]: row[-1] for row in rows}
        self.assertEqual(verdicts, {"quiet": "ok", "moved": "OUTSIDE", "noisy": "noisy"})
        self.assertAlmostEqual(rows[0][4], 1.009)

    def test_the_command_line_sums_up(self):
        out = subprocess.run([sys.executable, os.path.join(ANALYSIS, "consistency.py"),
                              *self.paths], check=True, capture_output=True, text=True).stdout
        self.assertIn("1 of 2 cases with spread below 2% agree within 1% (1 noisier cases not "
                      "judged)", out)


if __name__ == "__main__":
    unittest.main()
