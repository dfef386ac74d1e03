"""Derived figures selected by their typed keys, and the keys of files written before them."""
import os
import unittest

from splitstep_analysis.figure_keys import keyed
from splitstep_analysis.results import load_derived
from splitstep_analysis.schema import read_results
from support import DATA, ROOT


def figure(tag, name="", key=None):
    entry = {"tag": tag, "name": name or tag, "unit": "s", "value": 1.0}
    return entry if key is None else {**entry, "key": key}


class FigureKeysTest(unittest.TestCase):
    def test_a_figure_with_a_key_keeps_it(self):
        key = {"figure": "step/time", "mode": "overlap"}
        [result] = keyed([{"figures": [figure("step/time/sequential", key=key)]}])
        self.assertEqual(result["figures"][0]["key"], key)

    def test_the_tags_of_files_before_keys_give_the_keys_splitstep_writes(self):
        [result] = keyed([{"figures": [
            figure("collective/projection/all-gather/nccl/bf16/in/N=16/time"),
            figure("collective/projection/all-gather/nccl/bf16/in/N=16/busbw"),
            figure("step/projection/N=8/T_ddp"),
            figure("step/time/none"),
            figure("verdict/gemm-bf16/measured", "bf16 GEMM (bf16 n=8192)"),
            figure("verdict/gemm-bf16/expected"),
            figure("step/exposed/overlap")]}])
        keys = [f["key"] for f in result["figures"]]
        self.assertEqual(keys[0], {"figure": "collective/projection/time",
                                   "collective": "all-gather", "backend": "nccl",
                                   "dtype": "bf16", "placement": "in", "ranks": 16})
        self.assertEqual(keys[1], {})  # not a figure the package selects
        self.assertEqual(keys[2], {"figure": "step/projection", "ranks": 8, "mode": "overlap"})
        self.assertEqual(keys[3], {"figure": "step/time", "mode": "none"})
        # The case it judged was only in the figure's name, which is not taken apart; without
        # the file's cases, none is found.
        expected = {"item": "gemm-bf16", "case": "", "family": "matmul", "dtype": "bf16"}
        self.assertEqual(keys[4], {"figure": "verdict/measured", **expected})
        self.assertEqual(keys[5], {"figure": "verdict/expected", **expected})
        self.assertEqual(keys[6], {})

    def test_a_verdict_item_judged_the_case_whose_rate_is_its_measured_figure(self):
        gemm = 701.4768093694278
        cases = [{"case": "bf16 n=4096", "family": "matmul",
                  "rates": {"TFLOP/s": gemm * (1 - 1e-15)}},
                 {"case": "fp32 n=4096", "family": "matmul", "rates": {"TFLOP/s": 50.6}},
                 # Another family's case with the same number is not the GEMM's.
                 {"case": "triad 256 MiB", "family": "membw", "rates": {"GB/s": gemm}}]
        [result] = keyed([{"figures": [
            {**figure("verdict/gemm-bf16/measured"), "value": gemm},
            figure("verdict/gemm-bf16/expected"),
            {**figure("verdict/hbm-triad/measured"), "value": 4049.5}]}], cases)
        self.assertEqual([f["key"]["case"] for f in result["figures"]],
                         ["bf16 n=4096", "bf16 n=4096", ""])

    def test_a_committed_file_reads_with_keys(self):
        document = read_results(os.path.join(ROOT, "results", "2026-11-30-h200x2-step",
                                             "step-np2-final.json"))
        derived = load_derived(document)
        times = derived[derived["figure"] == "step/time"]
        self.assertEqual(set(times["mode"]), set(times["tag"].str.rsplit("/", n=1).str[-1]))
        self.assertFalse(times.empty)

    def test_the_verdict_fixture_names_its_case_in_the_key(self):
        derived = load_derived(read_results(os.path.join(DATA, "verdict.json")))
        verdict = derived[derived["figure"] == "verdict/expected"]
        self.assertFalse(verdict.empty)
        self.assertTrue(set(verdict["family"]) <= {"matmul", "membw", "collective"})


if __name__ == "__main__":
    unittest.main()
