"""splitstep_analysis.eager_results: the files `splitstep-analysis eager --json` writes, told
apart by name, checked for the fields a pairing reads, and their phases' medians. The standard
library only (CTest analysis_python_stdlib runs it under a bare python3)."""
import copy
import os
import unittest

from splitstep_analysis.eager_results import TOOL, checked, is_eager, phase_seconds
from splitstep_analysis.launches import read_eager
from splitstep_analysis.schema import BadInput

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# Written before the command had its name: "step_twin".
COMMITTED = os.path.join(ROOT, "results", "2026-12-03-h200-graphed-step", "host",
                         "library-vit-b16-small-1.json")


def eager_run(ranks):
    return {"tool": TOOL, "model": "mlp", "precision": "bf16", "optimizer": "sgd",
            "optimizer_impl": "foreach", "input": "device", "world_size": len(ranks),
            "ddp": False, "no_sync": False, "parameters": 816, "shape": {},
            "ranks": [{"rank": r, "phases": phases} for r, phases in enumerate(ranks)]}


class Refused(Exception):
    pass


class EagerResultsTest(unittest.TestCase):
    def test_both_names_are_read_and_nothing_else(self):
        self.assertTrue(is_eager({"tool": "splitstep-analysis eager"}))
        self.assertTrue(is_eager({"tool": "step_twin"}))
        for value in ({"tool": "other"}, {"schema": "splitstep.results/2"}, [TOOL], TOOL):
            with self.subTest(value=value):
                self.assertFalse(is_eager(value))

    def test_a_run_without_its_fields_or_times_is_refused_in_one_line(self):
        good = eager_run([{"step": [1.0]}])
        self.assertIs(checked(good, "e.json"), good)
        without_shape = {k: v for k, v in good.items() if k != "shape"}
        empty_phase = eager_run([{"step": []}])
        text_time = eager_run([{"step": ["1 ms"]}])
        no_phases = copy.deepcopy(good)
        del no_phases["ranks"][0]["phases"]
        for document, reason in ((without_shape, "KeyError: 'shape'"),
                                 (empty_phase, "ValueError: a phase without times"),
                                 (text_time, "ValueError: a phase without times"),
                                 (no_phases, "KeyError: 'phases'"),
                                 (dict(good, ranks=None), "TypeError")):
            with self.subTest(reason=reason):
                with self.assertRaises(Refused) as caught:
                    checked(document, "e.json", Refused)
                message = str(caught.exception)
                self.assertTrue(message.startswith("e.json: not a result of splitstep-analysis "
                                                   "eager ("), message)
                self.assertIn(reason, message)
                self.assertEqual(len(message.splitlines()), 1)
        with self.assertRaises(BadInput):
            checked(without_shape, "e.json")

    def test_phase_medians_over_ranks_and_sums_per_step(self):
        # Rank 0's forward + loss per step is 3, 5, 4 (median 4; the sum of the medians is 5),
        # rank 1's 6 throughout: the median over ranks is 5.
        document = eager_run([{"forward": [1.0, 4.0, 2.0], "loss": [2.0, 1.0, 2.0]},
                              {"forward": [5.0, 5.0, 5.0], "loss": [1.0, 1.0, 1.0]}])
        self.assertEqual(phase_seconds(document, "forward"), 3.5)
        self.assertEqual(phase_seconds(document, ("forward", "loss")), 5.0)
        self.assertEqual(phase_seconds(document, ["forward"]),
                         phase_seconds(document, "forward"))

    def test_a_committed_file_of_the_old_name_reads(self):
        document = checked(read_eager(COMMITTED), COMMITTED)
        self.assertEqual(document["tool"], "step_twin")
        self.assertGreater(phase_seconds(document, ("forward", "loss")),
                           phase_seconds(document, "forward"))


if __name__ == "__main__":
    unittest.main()
