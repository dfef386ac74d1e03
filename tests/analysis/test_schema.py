"""splitstep_analysis.schema: schema v1 and v2 read into one typed shape. The standard library
only (CTest analysis_python_stdlib runs it under a bare python3)."""
import copy
import gzip
import json
import os
import tempfile
import unittest

from splitstep_analysis.plans import option_text, plan, plan_integer
from splitstep_analysis.schema import (ResultsError, as_document, field_types, normalise,
                                       read_results)

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
V2 = os.path.join(DATA, "v2-unknown-collective.json")


def v1_case(suite, params, series=None, name="a case"):
    return {"suite": suite, "case": name, "series": series or suite, "skipped": False,
            "params": params, "rates": {}, "ranks": [{"rank": 0, "values": [1e-3]}],
            "across_ranks": {"median": 1e-3}}


def v1(*cases):
    return {"schema": "splitstep.results/1", "metadata": {}, "cases": list(cases)}


class V1Test(unittest.TestCase):
    def test_params_become_typed_fields_under_v2_names(self):
        document, _ = as_document(v1(
            v1_case("alltoall", {"backend": "nccl", "bytes": "512", "size": "512", "count": "128",
                                 "placement": "in place", "group": "0,1", "group_index": "0"}),
            v1_case("step", {"model": "mlp", "bucket_sizes": "1048576,2048", "delay": "0.5",
                             "flop_per_step": "26388279066624", "batch": "64"}, "step"),
            v1_case("matmul", {"dtype": "bf16", "m": "8192", "n": "8192", "k": "8192"}, "mm")))
        alltoall, step, matmul = document["cases"]
        self.assertEqual((alltoall["family"], step["family"], matmul["family"]),
                         ("collective", "step", "matmul"))
        self.assertEqual(alltoall["fields"], {"collective": "alltoall", "backend": "nccl",
                                              "bytes": 512, "size": 512, "count": 128,
                                              "placement": "in", "group": [0, 1],
                                              "group_index": 0})
        self.assertEqual(step["fields"]["bucket_sizes"], [1048576, 2048])
        self.assertEqual(step["fields"]["delay"], 0.5)
        self.assertEqual(step["fields"]["flop_per_step"], 26388279066624.0)
        self.assertEqual(step["fields"]["batch"], 64)
        self.assertEqual(matmul["fields"]["m"], 8192)

    def test_the_catalogue_is_derived_from_the_cases(self):
        document, _ = as_document(v1(v1_case("gather", {"bytes": "8"}),
                                     v1_case("matmul", {"m": "8"}, "mm"),
                                     v1_case("scatter", {"bytes": "8", "dtype": "fp32"})))
        catalogue = document["metadata"]["catalogue"]
        self.assertEqual(catalogue["collectives"], ["gather", "scatter"])
        self.assertEqual(catalogue["suites"], [{"name": "gather", "family": "collective"},
                                               {"name": "matmul", "family": "matmul"},
                                               {"name": "scatter", "family": "collective"}])
        self.assertEqual(field_types(document), {"collective": "string", "bytes": "integer",
                                                 "dtype": "string", "m": "integer"})

    def test_earlier_revisions_read_under_current_names(self):
        document, _ = as_document(v1(v1_case("allreduce", {"bytes": "1024", "in_place": "true"})))
        fields = document["cases"][0]["fields"]
        self.assertEqual((fields["placement"], fields["size"]), ("in", 1024))

    def test_a_param_that_is_not_its_type_is_bad_input(self):
        for params, message in (({"bytes": "1 KiB"}, "param bytes '1 KiB' is not an integer"),
                                ({"delay": "soon"}, "param delay 'soon' is not a number"),
                                ({"group": "0,x"}, "param group '0,x' is not an integer list"),
                                ({"bytes": 8}, "a param is not a string")):
            with self.subTest(params=params), self.assertRaises(ResultsError) as caught:
                normalise(v1(v1_case("allreduce", params)), "run.json")
            self.assertEqual(str(caught.exception), f"run.json: cases[0]: {message}" + (
                " (schema v1 writes every param as a string)" if "string" in message else ""))

    def test_reading_again_gives_the_same(self):
        document, _ = as_document(v1(v1_case("allreduce", {"bytes": "8"})))
        self.assertEqual(as_document(document)[0], document)


class V2Test(unittest.TestCase):
    def test_fields_are_read_as_the_catalogue_types_them(self):
        document = read_results(V2)
        first = document["cases"][0]
        self.assertEqual(first["family"], "collective")
        self.assertEqual(first["fields"]["bytes"], 1024)
        self.assertEqual(document["cases"][1]["fields"]["group"], [0, 1])
        self.assertIn("allreduce_tree", {c["fields"].get("collective")
                                         for c in document["cases"]})
        self.assertEqual(field_types(document)["group"], "integer list")

    def test_a_field_against_its_catalogue_is_bad_input(self):
        with open(V2) as f:
            good = json.load(f)
        for change, message in (
                (lambda d: d["cases"][0]["fields"].update(bytes="1024"), "field bytes is "),
                (lambda d: d["cases"][0]["fields"].update(group=[0, "1"]), "field group is "),
                (lambda d: d["cases"][0]["fields"].update(colour="red"), "field colour is not in"),
                (lambda d: d["cases"][0].update(family="fft"), "family 'fft' is not in"),
                (lambda d: d["metadata"].pop("catalogue"), "metadata.catalogue is missing"),
                (lambda d: d["metadata"]["catalogue"]["families"]["matmul"]["fields"].append(
                    {"name": "x", "type": "float"}), "has type 'float'"),
                (lambda d: d["metadata"]["catalogue"].update(collective_facts={"allreduce": {
                    "root": "0", "reduction": "sum", "nccl_tests_binary": "all_reduce_perf",
                    "verdicts": []}}), "collective_facts is not an object of")):
            document = copy.deepcopy(good)
            change(document)
            with self.subTest(message), self.assertRaises(ResultsError) as caught:
                normalise(document, "run.json")
            self.assertIn(message, str(caught.exception))
            self.assertEqual(len(str(caught.exception).splitlines()), 1)

    def test_other_schemas_and_files_are_refused_naming_the_file(self):
        with tempfile.TemporaryDirectory() as folder:
            other = os.path.join(folder, "other.json")
            with open(other, "w") as f:
                json.dump({"schema": "splitstep.results/3", "metadata": {}, "cases": []}, f)
            for path, message in ((other, "schema: 'splitstep.results/3'"),
                                  (os.path.join(folder, "none.json"), "cannot read")):
                with self.assertRaises(ResultsError) as caught:
                    read_results(path)
                self.assertIn(path, str(caught.exception))
                self.assertIn(message, str(caught.exception))

    def test_a_gzip_compressed_file_reads_as_the_plain_one(self):
        with open(V2, "rb") as f:
            raw = f.read()
        with tempfile.TemporaryDirectory() as folder:
            packed = os.path.join(folder, "run.json.gz")
            with open(packed, "wb") as f:
                f.write(gzip.compress(raw))
            self.assertEqual(read_results(packed)["cases"], read_results(V2)["cases"])


class PlanTest(unittest.TestCase):
    """The plan holds every option typed (files before that: as canonical text): read back by
    name, an integer decoded, a value written as the option takes it."""

    def test_the_plan_of_a_file_without_one_is_empty(self):
        self.assertEqual(plan({"schema": "splitstep.results/2"}), {})
        self.assertEqual(plan({"plan": ["not", "an", "object"]}), {})
        self.assertEqual(plan({"plan": {"gpt2-layers": "2"}}), {"gpt2-layers": "2"})

    def test_an_option_is_an_integer_only_where_its_text_is_one(self):
        options = {"gpt2-layers": "12", "lr": "0.001", "device": "cuda", "batch": 8,
                   "cuda-graph": True, "empty": ""}
        self.assertEqual(plan_integer(options, "gpt2-layers"), 12)
        self.assertEqual(plan_integer(options, "batch"), 8)
        for name in ("lr", "device", "cuda-graph", "empty", "absent"):
            with self.subTest(option=name):
                self.assertIsNone(plan_integer(options, name))

    def test_a_typed_value_is_written_as_the_option_takes_it(self):
        for value, text in ((True, "on"), (False, "off"), ([8, 1024], "8,1024"),
                            (["fp32", "bf16"], "fp32,bf16"), (0.01, "0.01"), (12, "12"), (25.0, "25"),
                            ("auto", "auto"), ("0.5", "0.5")):
            with self.subTest(value=value):
                self.assertEqual(option_text(value), text)

    def test_a_committed_plan_reads_back_its_shape(self):
        document = read_results(os.path.join(
            DATA, "..", "..", "..", "results", "2026-12-05-h200-exported-parity-bf16",
            "builtin-gpt2-np1.json"))
        self.assertEqual(plan_integer(plan(document), "gpt2-layers"), 12)


if __name__ == "__main__":
    unittest.main()
