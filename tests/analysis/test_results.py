"""The loaders of splitstep_analysis.results: v1 and v2 files as typed DataFrames, and the
example notebook that uses them."""
import json
import os
import unittest

import pandas as pd

from splitstep_analysis.results import load_cases, load_derived, load_ranks, load_samples
from support import DATA, ROOT, FilesTestCase
from test_plot import collective_cases, document, matmul_cases

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


class LoadCasesTest(FilesTestCase):
    def setUp(self):
        super().setUp()
        self.results = self.write("results.json", {
            "schema": "splitstep.results/1", "metadata": {}, "plan": {}, "ranks": [],
            "cases": [case("allreduce", 8, 10e-6, 0.0), case("allreduce", 65536, 10e-6, 6.5),
                      case("allreduce", 1 << 20, 15e-6, 70.0),
                      case("allreduce", 1 << 20, 0, 0, backend="mpi", skipped=True)]})

    def test_load_cases_keeps_measured_cases_with_numeric_sizes(self):
        frame = load_cases(self.results)
        self.assertEqual(len(frame), 3)
        self.assertEqual(list(frame["size"]), [8, 65536, 1 << 20])
        self.assertAlmostEqual(frame["busbw GB/s"].iloc[2], 70.0)
        self.assertEqual(str(frame["size"].dtype), "Int64")
        self.assertEqual(set(frame["placement"]), {"out"})
        self.assertEqual(set(frame["collective"]), {"allreduce"})

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
        other = self.write("other.json", {"schema": "something else"})
        with self.assertRaises(ValueError):
            load_cases(other)


class V2FramesTest(unittest.TestCase):
    def test_columns_are_typed_as_the_catalogue_says(self):
        frame = load_cases(os.path.join(DATA, "v2-unknown-collective.json"))
        self.assertEqual(list(frame["family"]), ["collective"] * 4 + ["matmul"])
        self.assertEqual(list(frame["collective"][:4]),
                         ["allreduce", "allreduce", "allreduce_tree", "allreduce_tree"])
        for column in ("size", "bytes", "count", "m", "n", "k", "group_index"):
            self.assertEqual(str(frame[column].dtype), "Int64", column)
        self.assertEqual(frame["bytes"].iloc[1], 1 << 20)
        self.assertTrue(pd.isna(frame["bytes"].iloc[4]))  # a matmul has no bytes field
        self.assertEqual(frame["group"].iloc[1], [0, 1])
        self.assertTrue(pd.isna(frame["group_index"].iloc[0]))  # absent: an optional field

    def test_v1_and_v2_give_the_same_columns_for_the_same_case(self):
        v2 = load_cases(os.path.join(DATA, "v2-unknown-collective.json")).iloc[0]
        v1 = load_cases({"schema": "splitstep.results/1", "metadata": {}, "cases": [
            case("allreduce", 1024, v2["median_s"], v2["busbw GB/s"])]}).iloc[0]
        for column in ("family", "collective", "backend", "dtype", "placement", "size", "bytes"):
            self.assertEqual(v1[column], v2[column], column)


class LoadersAndNotebookTest(unittest.TestCase):
    def test_ranks_and_samples(self):
        doc = document(matmul_cases())
        ranks = load_ranks(doc)
        self.assertEqual(len(ranks), 8)  # 4 cases x 2 ranks
        row = ranks[(ranks["case"] == "bf16 n=8192") & (ranks["rank"] == 1)].iloc[0]
        self.assertAlmostEqual(row["median_s"], 2.0 * 8192 ** 3 / 700e12 * 1.05)
        self.assertEqual(row["samples"], 9)
        self.assertEqual((row["m"], row["n"]), (8192, 8192))  # the shape, not the sample count
        samples = load_samples(doc)
        self.assertEqual(len(samples), 8 * 9)
        self.assertEqual(list(samples["sample"][:3]), [0, 1, 2])

    def test_collectives_of_earlier_revisions_read_under_current_names(self):
        [old] = collective_cases()[:1]
        old["params"] = {"backend": "nccl", "bytes": "1024", "count": "256", "dtype": "fp32",
                         "in_place": "true", "op": "sum"}
        row = load_cases(document([old])).iloc[0]
        self.assertEqual((row["placement"], row["size"]), ("in", 1024))

    def test_example_notebook_is_nbformat_4_with_code_that_compiles(self):
        with open(os.path.join(ROOT, "analysis", "example.ipynb")) as f:
            notebook = json.load(f)
        self.assertEqual(notebook["nbformat"], 4)
        self.assertIn("kernelspec", notebook["metadata"])
        code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
        self.assertGreater(len(code), 10)
        for cell in notebook["cells"]:
            self.assertIsInstance(cell["source"], list)
            self.assertIn("id", cell)
        for cell in code:  # committed with its outputs: test_notebook runs it and checks them
            compile("".join(cell["source"]), "example.ipynb", "exec")
        text = "".join("".join(c["source"]) for c in code)
        self.assertIn('"step-np2-final.json"', text)
        # The package, imported as installed: no path of the checkout put on sys.path.
        self.assertIn("from splitstep_analysis", text)
        self.assertNotIn("sys.path", text)
        self.assertTrue(os.path.isfile(os.path.join(ROOT, "results", "2026-11-30-h200x2-step",
                                                    "step-np2-final.json")))



if __name__ == "__main__":
    unittest.main()


class RatesTest(unittest.TestCase):
    """A rate is found by its key under the name its file's catalogue gives it."""

    def test_the_catalogues_name_is_the_column(self):
        from splitstep_analysis.rates import BUSBW, rate_column
        from splitstep_analysis.schema import normalise
        doc = normalise(document(collective_cases()), "<v1>")
        doc["schema"] = "splitstep.results/2"
        renamed = "bus bandwidth (GB/s)"
        for entry in doc["metadata"]["catalogue"]["families"].values():
            for rate in entry["rates"]:
                if rate["name"] == "busbw GB/s":
                    rate.update(key=BUSBW, name=renamed, unit="GB/s", better="higher")
        for c in doc["cases"]:
            c["rates"] = {renamed if k == "busbw GB/s" else k: v for k, v in c["rates"].items()}
        frame = load_cases(doc)
        self.assertIn(renamed, frame)
        self.assertEqual(rate_column(frame, BUSBW), renamed)
        self.assertEqual(rate_column(frame[frame["backend"] == "nccl"], BUSBW), renamed)

    def test_a_file_without_keys_reads_with_the_names_of_its_time(self):
        from splitstep_analysis.rates import BUSBW, rate_column
        frame = load_cases(document(collective_cases()))
        self.assertEqual(rate_column(frame, BUSBW), "busbw GB/s")
        self.assertIn("busbw GB/s", frame)
