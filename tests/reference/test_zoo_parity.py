"""Zoo parity on the CPU: the library's model run as splitstep ran its reproduction
(`splitstep-analysis eager --like`), parity.py on the pair with parameter counts and kernel lists, and the
shapes zoo_shapes.py draws. Runs splitstep itself where the build has it (CTest passes it in
SPLITSTEP; by hand, SPLITSTEP=build/splitstep)."""
import contextlib
import csv
import io
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import parity  # noqa: E402
from eager_support import EAGER, environment, run_eager  # noqa: E402
from splitstep_analysis import eager, eager_models  # noqa: E402
import zoo_shapes  # noqa: E402

SPLITSTEP = os.environ.get("SPLITSTEP", os.path.join(ROOT, "build", "splitstep"))
SAMPLES = 3
# splitstep's options of every CPU run here: the recipe the library's model must take over.
RECIPE = ["--device", "cpu", "--sync-modes", "single", "--samples", str(SAMPLES),
          "--warmup", "1", "--optimizer", "adamw", "--lr", "0.002", "--input", "pageable",
          "--check", "off", "--telemetry", "off", "--quiet"]
TINY_MLP = {"mlp-layers": 2, "mlp-width": 16, "mlp-batch": 4}

# A zoo module of the README's form for splitstep's mlp, whose "library" is torch.nn itself:
# what splitstep's mlp computes, built the way a user would write it.
FIXTURE = textwrap.dedent('''
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    NAME = "mlp"
    REPRODUCES = "torch.nn Sequential of Linear and GELU (a fixture of the tests)"
    CPU_SHAPES = [{"mlp-layers": 2, "mlp-width": 16, "mlp-batch": 4}]


    def library_model(shape):
        layers = []
        for _ in range(shape["mlp-layers"]):
            layers += [nn.Linear(shape["mlp-width"], shape["mlp-width"]), nn.GELU()]
        return nn.Sequential(*layers)


    def example_batch(shape, generator):
        rows, width = shape["mlp-batch"], shape["mlp-width"]
        return (torch.randn(rows, width, generator=generator),
                torch.randn(rows, width, generator=generator))


    def forward(model, input):
        return model(input)


    def loss(output, target):
        return F.mse_loss(output.float(), target)
''')


def quiet(function, *args):
    """function(*args) with its output swallowed; (result, what it printed)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        result = function(*args)
    return result, out.getvalue()


def zoo_names():
    """The zoo modules of this checkout, by file name."""
    return sorted(p[:-3] for p in os.listdir(eager_models.ZOO_MODELS)
                  if p.endswith(".py") and p != "__init__.py")


def options_of(shape):
    return [arg for name, value in shape.items() for arg in (f"--{name}", str(value))]


class SplitstepRun(unittest.TestCase):
    """A folder per test, and splitstep's CPU run of a model at a shape in it."""

    def setUp(self):
        if not os.access(SPLITSTEP, os.X_OK):
            self.skipTest(f"no splitstep at {SPLITSTEP} (SPLITSTEP names it)")
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.profile = os.path.join(self.dir, "traces")

    def splitstep(self, model, shape, precisions="bf16,fp32", name="splitstep"):
        path = os.path.join(self.dir, f"{name}-{model}.json")
        result = subprocess.run(
            [SPLITSTEP, "step", "--step-models", model, "--precision", precisions,
             "--torch-profile", self.profile, "--json", path, *RECIPE, *options_of(shape)],
            capture_output=True, text=True, timeout=300,
            env=dict(os.environ, OMP_NUM_THREADS="1"))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        return path

    def anchor(self, results, *args):
        """`splitstep-analysis eager --like RESULTS ARGS`: (exit status, document or None, its output)."""
        path = os.path.join(self.dir, f"anchor-{len(os.listdir(self.dir))}.json")
        status, text = quiet(run_eager,
                             ["--like", results, "--json", path, "--profile", self.profile,
                              *args])
        document = None
        if status == 0:
            with open(path) as f:
                document = json.load(f)
        return status, document, text, path

    def parity(self, *args):
        csv_path = os.path.join(self.dir, "parity.csv")
        status, text = quiet(parity.main, [*args, "--csv", csv_path])
        rows = []
        if status in (0, 1):
            with open(csv_path) as f:
                rows = list(csv.DictReader(f))
        return status, text, rows


class AnchorTest(SplitstepRun):
    """The library's model as splitstep ran: a fixture zoo module for splitstep's mlp."""

    def setUp(self):
        super().setUp()
        zoo = os.path.join(self.dir, "zoo")
        os.makedirs(zoo)
        with open(os.path.join(zoo, "mlp.py"), "w") as f:
            f.write(FIXTURE)
        saved = eager_models.ZOO_MODELS
        eager_models.ZOO_MODELS = pathlib.Path(zoo)
        self.addCleanup(setattr, eager_models, "ZOO_MODELS", saved)

    def test_takes_every_option_from_the_results_file(self):
        results = self.splitstep("mlp", TINY_MLP)
        status, document, text, _ = self.anchor(results, "--precision", "bf16")
        self.assertEqual(status, 0, text)
        self.assertEqual(document["reference"], "library")
        self.assertIn("a fixture of the tests", document["reproduces"])
        self.assertEqual(document["shape"], TINY_MLP)
        self.assertEqual(document["like"], results)
        with open(results) as f:
            splitstep = json.load(f)
        case = next(c for c in splitstep["cases"]
                    if c["series"] == "step" and c["fields"]["precision"] == "bf16")
        self.assertEqual(document["parameters"], case["fields"]["parameters"])
        self.assertEqual((document["model"], document["precision"], document["optimizer"],
                          document["optimizer_impl"], document["input"]),
                         ("mlp", "bf16", "adamw", case["fields"]["optimizer_impl"], "pageable"))
        # splitstep's cold start and its one warm-up step; its samples, one step each.
        self.assertEqual((document["warmup"], document["steps"]), (2, SAMPLES))
        phases = document["ranks"][0]["phases"]
        self.assertEqual({len(v) for v in phases.values()}, {SAMPLES})
        self.assertTrue(os.path.exists(document["trace"]), document["trace"])
        self.assertEqual(os.path.basename(document["trace"]), "library-mlp-bf16-rank0.json")

        # Two precisions in the file: which one must be said; a precision it lacks is refused.
        self.assertEqual(self.anchor(results)[0], 2)
        status, _, text, _ = self.anchor(results, "--precision", "fp16")
        self.assertEqual(status, 2)
        self.assertIn("holds no step case", text)
        # The run's options are the file's: none is taken from the command line.
        status, _, text, _ = self.anchor(results, "--precision", "bf16", "--steps", "5")
        self.assertEqual(status, 2)
        self.assertIn("--steps not taken", text)

    def test_a_library_model_of_another_size_is_refused(self):
        results = self.splitstep("mlp", TINY_MLP, precisions="fp32")
        with open(results) as f:
            document = json.load(f)
        for case in document["cases"]:
            case["fields"]["parameters"] += 16  # splitstep's model, one bias larger
        other = os.path.join(self.dir, "other.json")
        with open(other, "w") as f:
            json.dump(document, f)
        status, _, text, path = self.anchor(other)
        self.assertEqual(status, 2)
        self.assertEqual(text.strip().splitlines()[-1],
                         f"splitstep-analysis eager: --like: mlp at {TINY_MLP}: the library's "
                         f"model has 544 parameters, splitstep's 560: not the same model")
        self.assertFalse(os.path.exists(path))

    def test_parity_on_the_pair(self):
        results = self.splitstep("mlp", TINY_MLP)
        anchors = []
        for precision in ("bf16", "fp32"):
            status, _, text, path = self.anchor(results, "--precision", precision)
            self.assertEqual(status, 0, text)
            anchors.append(path)
        status, text, rows = self.parity(results, *anchors, "--kernels")
        self.assertEqual(status, 0, text)
        self.assertEqual(sorted((r["precision"], r["phase"]) for r in rows),
                         sorted((p, phase) for p in ("bf16", "fp32")
                                for phase in ("forward", "backward", "optimizer", "step")))
        for row in rows:
            self.assertEqual((row["reference"], row["shape"], row["mode"]),
                             ("library", "mlp-layers=2 mlp-width=16 mlp-batch=4", "single"))
            self.assertEqual(row["splitstep_parameters"], row["reference_parameters"])
            self.assertAlmostEqual(float(row["ratio"]),
                                   float(row["splitstep_s"]) / float(row["reference_s"]))
        self.assertIn("mlp bf16 at mlp-layers=2 mlp-width=16 mlp-batch=4: splitstep / the "
                      "library's model", text)
        self.assertIn("parameters (single): splitstep 544, library 544: equal", text)
        self.assertIn("parameter counts equal in 2 of 2 pairs", text)
        # Both profiles were written, but a CPU runs no GPU kernel: nothing shown equal.
        self.assertIn("kernels (single): no GPU kernels", text)
        self.assertIn("kernel lists equal in 0 of 2 pairs", text)
        self.assertEqual(self.parity(results, *anchors, "--kernels", "--strict")[0], 1)

    def test_another_shape_of_the_same_size_is_not_its_partner(self):
        # Batches 4 and 6: the same parameters, another step.
        four = self.splitstep("mlp", TINY_MLP, precisions="fp32", name="four")
        six = self.splitstep("mlp", dict(TINY_MLP, **{"mlp-batch": 6}), precisions="fp32",
                             name="six")
        _, _, _, anchor = self.anchor(four)
        status, text, rows = self.parity(four, six, anchor)
        self.assertEqual(status, 0, text)
        self.assertEqual({r["splitstep_file"] for r in rows}, {four})
        self.assertIn("mlp fp32 single (1 rank(s)): no twin run", text)
        self.assertEqual(self.parity(four, six, anchor, "--strict")[0], 1)

    def test_a_model_without_a_zoo_module_runs_its_twin(self):
        eager_models.ZOO_MODELS = pathlib.Path(self.dir, "empty")
        results = self.splitstep("mlp", TINY_MLP, precisions="fp32")
        status, document, text, _ = self.anchor(results)
        self.assertEqual(status, 0, text)
        self.assertEqual((document["reference"], document["shape"]),
                         ("twin", {"layers": 2, "width": 16, "batch": 4}))
        self.assertEqual(os.path.basename(document["trace"]), "twin-mlp-rank0.json")


class DdpLikeTest(SplitstepRun):
    """--like under --ddp on two CPU ranks: the run that stands for overlap, and for none under
    --no-sync (splitstep's mlp, which has no zoo module: its twin)."""

    def setUp(self):
        super().setUp()
        self.mpirun = os.environ.get("SPLITSTEP_MPIEXEC") or shutil.which("mpirun")
        if not (self.mpirun and os.access(self.mpirun, os.X_OK)):
            self.skipTest("no mpirun: the two-rank runs are not tested")
        self.env = dict(environment(), OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                        OMP_NUM_THREADS="1")

    def ranks(self, *command):
        version = subprocess.run([self.mpirun, "--version"], capture_output=True, text=True)
        extra = ["--oversubscribe"] if "Open MPI" in version.stdout + version.stderr else []
        result = subprocess.run([self.mpirun, "-np", "2", *extra, *command], capture_output=True,
                                text=True, timeout=300, env=self.env)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_overlap_and_none_on_two_ranks(self):
        self.assertIsNone(eager_models.zoo_module("mlp"))
        results = os.path.join(self.dir, "splitstep.json")
        recipe = [a if a != "single" else "none,overlap" for a in RECIPE]
        self.ranks(SPLITSTEP, "step", "--step-models", "mlp", "--precision", "fp32",
                   "--json", results, *recipe, *options_of(TINY_MLP))
        runs = []
        for flags in (["--ddp"], ["--ddp", "--no-sync"]):
            path = os.path.join(self.dir, f"twin-{len(runs)}.json")
            self.env["MASTER_PORT"] = str(free_port())
            self.ranks(*EAGER, *flags, "--like", results,
                       "--json", path)
            runs.append(path)
        status, text, rows = self.parity(results, *runs, "--strict")
        self.assertEqual(status, 1, text)  # CPU times of tiny models are not within 2%
        phases = ("forward", "backward", "optimizer", "step")
        self.assertEqual(sorted((r["mode"], r["phase"]) for r in rows),
                         sorted([("none", p) for p in phases] +
                                [("overlap", p.replace("backward", "backward + sync"))
                                 for p in phases]))
        self.assertEqual({r["world_size"] for r in rows}, {"2"})
        self.assertIn("parameter counts equal in 2 of 2 pairs", text)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ZooModelTest(SplitstepRun):
    """Every zoo model of this checkout (analysis/splitstep_analysis/zoo), at its first CPU shape:
    splitstep's reproduction, then the library's model as it ran, then parity.py."""

    def test_every_zoo_model_at_a_cpu_shape(self):
        names = zoo_names()
        if not names:
            self.skipTest("no zoo model in analysis/splitstep_analysis/zoo yet")
        for name in names:
            module = eager_models.zoo_module(name)
            with self.subTest(model=module.NAME):
                shape = module.CPU_SHAPES[0]
                results = self.splitstep(module.NAME, shape, precisions="fp32")
                status, document, text, path = self.anchor(results)
                self.assertEqual(status, 0, text)
                self.assertEqual((document["reference"], document["reproduces"],
                                  document["shape"]), ("library", module.REPRODUCES, shape))
                status, text, rows = self.parity(results, path)
                self.assertEqual(status, 0, text)
                self.assertEqual([r["phase"] for r in rows],
                                 ["forward", "backward", "optimizer", "step"])
                self.assertEqual({r["splitstep_parameters"] == r["reference_parameters"]
                                  for r in rows}, {True})


# --- parity.py's kernel lists, on synthetic traces -------------------------------------------


def trace(kernels):
    return {"traceEvents": [{"ph": "X", "cat": "kernel", "name": name, "dur": 10.0, "ts": i}
                            for i, name in enumerate(kernels)]}


class KernelListTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def write(self, name, document):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            json.dump(document, f)
        return path

    def pair(self, splitstep_kernels, library_kernels, splitstep_s=0.01, library_s=0.01):
        """A splitstep case of gpt2 at one shape and the library run beside it, each with a
        profile of three steps (10 us a kernel) and every phase of `splitstep_s`, `library_s`."""
        profile = os.path.join(self.dir, "traces")
        os.makedirs(profile, exist_ok=True)
        self.write("traces/splitstep-gpt2-bf16-single-rank0.json", trace(splitstep_kernels * 3))
        library_trace = self.write("library.trace.json", trace(library_kernels * 3))
        fields = {"model": "gpt2", "precision": "bf16", "mode": "single", "world_size": 1,
                  "optimizer": "adamw", "optimizer_impl": "foreach", "input": "device",
                  "parameters": 1000, "batch": 2}
        series = [{"suite": "step", "family": "step", "case": "gpt2 bf16 single", "series": name,
                   "skipped": False, "fields": fields, "across_ranks": {"median": splitstep_s},
                   "ranks": [{"rank": 0, "values": [splitstep_s] * 3}]}
                  for name in ("forward", "backward", "optimizer", "step")]
        # A v2 file's catalogue types its cases' fields (docs/results-schema.md).
        catalogue = {"suites": [{"name": "step", "family": "step"}], "collectives": [],
                     "families": {"step": {"rates": [], "fields": [
                         {"name": name, "type": "integer" if isinstance(value, int) else "string"}
                         for name, value in fields.items()]}}}
        splitstep = self.write("splitstep.json", {
            "schema": "splitstep.results/2", "metadata": {"catalogue": catalogue},
            "cases": series,
            "plan": {"torch-profile": profile, "gpt2-layers": "2", "gpt2-batch": "2"}})
        library = self.write("library.json", {
            "tool": "step_twin", "reference": "library", "model": "gpt2", "precision": "bf16",
            "optimizer": "adamw", "optimizer_impl": "foreach", "input": "device",
            "world_size": 1, "ddp": False, "no_sync": False, "parameters": 1000,
            "shape": {"gpt2-layers": 2, "gpt2-batch": 2}, "trace": library_trace,
            "profiled_steps": 3,
            "ranks": [{"rank": 0, "phases": {p: [library_s] * 3 for p in
                                             ("forward", "backward", "optimizer", "step")}}]})
        return splitstep, library

    def run_parity(self, *args):
        return quiet(parity.main, list(args))

    def test_equal_lists(self):
        splitstep, library = self.pair(["gemm", "gemm", "softmax"], ["softmax", "gemm", "gemm"])
        status, text = self.run_parity(splitstep, library, "--kernels", "--strict")
        self.assertEqual(status, 0, text)
        self.assertIn("kernels (single): equal\n  2 kernel names, the same calls per step\n"
                      "  kernel time per step: splitstep 0.030 ms (0% of its step), library "
                      "0.030 ms (0% of its step)", text)
        self.assertIn("kernel lists equal in 1 of 1 pairs", text)

    def test_a_kernel_more_or_missing_differs(self):
        splitstep, library = self.pair(["gemm", "gemm", "fill", "copy"], ["gemm", "copy", "add"])
        status, text = self.run_parity(splitstep, library, "--kernels", "--strict")
        self.assertEqual(status, 1, text)
        self.assertIn("kernels (single): differ\n  kernel time per step: splitstep 0.040 ms (0% "
                      "of its step), library 0.030 ms (0% of its step)\n  3 of 4 kernel names "
                      "differ in calls per step (splitstep, library):", text)
        self.assertRegex(text, r"\n\s+2\.00\s+1\.00  gemm\n")
        self.assertRegex(text, r"\n\s+1\.00\s+0\.00  fill\n")
        self.assertRegex(text, r"\n\s+0\.00\s+1\.00  add\n")
        self.assertNotRegex(text, r"  copy\n")
        # Without --strict, differences are reported, not an error.
        self.assertEqual(self.run_parity(splitstep, library, "--kernels")[0], 0)

    def test_step_times_are_judged_where_the_kernels_fill_both_steps(self):
        # 30 us of kernels in a step of 30.1 us on both sides; splitstep 5% slower.
        splitstep, library = self.pair(["gemm", "gemm", "softmax"], ["softmax", "gemm", "gemm"],
                                       31.6e-6, 30.1e-6)
        status, text = self.run_parity(splitstep, library, "--kernels", "--strict")
        self.assertEqual(status, 1, text)
        self.assertRegex(text, r"single\s+1\s+kernels\s+0\.030\s+0\.030\s+1\.000\s+ok\n")
        self.assertRegex(text, r"single\s+1\s+step\s+0\.032\s+0\.030\s+1\.050\s+slower\n")
        self.assertNotIn("not judged", text)

    def test_a_host_bound_side_is_named_and_its_step_not_judged(self):
        # The library's Python launches stretch its step to 60 us around 30 us of kernels: the
        # kernels are held to each other, its step is not called slower or faster.
        splitstep, library = self.pair(["gemm", "gemm", "softmax"], ["softmax", "gemm", "gemm"],
                                       30.1e-6, 60e-6)
        status, text = self.run_parity(splitstep, library, "--kernels", "--strict")
        self.assertEqual(status, 0, text)
        self.assertRegex(text, r"kernels\s+0\.030\s+0\.030\s+1\.000\s+ok\n")
        self.assertRegex(text, r"step\s+0\.030\s+0\.060\s+0\.502\s+not judged: library "
                               r"host-bound, kernels 50% of its step\n")
        self.assertNotIn("faster", text)
        self.assertIn("1 of 1 rows within 2%; 4 not judged (a side host-bound", text)

    def test_a_missing_trace_is_not_profiled(self):
        splitstep, library = self.pair(["gemm"], ["gemm"])
        os.remove(os.path.join(self.dir, "library.trace.json"))
        status, text = self.run_parity(splitstep, library, "--kernels")
        self.assertEqual(status, 0, text)
        self.assertIn("kernels (single): not profiled", text)
        self.assertIn("library.trace.json", text)

    def test_parameter_counts_side_by_side(self):
        splitstep, library = self.pair(["gemm"], ["gemm"])
        with open(library) as f:
            document = json.load(f)
        document["parameters"] = 1024
        self.write("library.json", document)
        status, text = self.run_parity(splitstep, library, "--strict")
        self.assertEqual(status, 1, text)
        self.assertIn("parameters (single): splitstep 1,000, library 1,024: differ: not the "
                      "same model", text)
        self.assertIn("4 of 4 rows within 2%", text)


# --- zoo_shapes.py ------------------------------------------------------------------------------

# The presets' shapes (configs/<name>.ini of each zoo model): GPT-2 small, Llama-3.2-1B,
# ViT-B/16 at 224, ResNet-50 at 224.
PRESETS = {
    "gpt2": {"gpt2-layers": 12, "gpt2-width": 768, "gpt2-heads": 12, "gpt2-positions": 1024,
             "gpt2-seq": 1024, "gpt2-batch": 16, "gpt2-vocab": 50257},
    "llama": {"llama-layers": 16, "llama-hidden": 2048, "llama-heads": 32, "llama-kv-heads": 8,
              "llama-intermediate": 8192, "llama-seq": 2048, "llama-batch": 8},
    "vit-b16": {"vit-layers": 12, "vit-width": 768, "vit-heads": 12, "vit-patch": 16,
                "vit-image": 224, "vit-batch": 128},
    "resnet50": {"resnet50-image": 224, "resnet50-width": 64, "resnet50-batch": 256,
                 "resnet50-channels-last": 0},
}


def text_preset(values):
    return {k: str(v) for k, v in values.items()}


def held_within_the_preset(test, model, shape, preset):
    """The bounds zoo_shapes.py promises, and what the library's constructors need."""
    def ratio(key):
        return shape[key] / preset[key]

    test.assertGreaterEqual(min(shape.values()), 0)
    batch = next(k for k in shape if k.endswith("-batch"))
    test.assertTrue(1 <= shape[batch] <= zoo_shapes.BATCH_FACTOR * preset[batch], shape)
    if model == "gpt2":
        test.assertEqual(shape["gpt2-width"] % shape["gpt2-heads"], 0)
        test.assertLessEqual(shape["gpt2-seq"], shape["gpt2-positions"])
        test.assertLessEqual(ratio("gpt2-width"), 1)
        test.assertLessEqual(ratio("gpt2-layers"), 1)
        test.assertLessEqual(ratio("gpt2-batch") * ratio("gpt2-seq"), 1)
    elif model == "llama":
        test.assertEqual(shape["llama-hidden"] % shape["llama-heads"], 0)
        test.assertEqual(shape["llama-heads"] % shape["llama-kv-heads"], 0)
        test.assertLessEqual(ratio("llama-hidden"), 1)
        test.assertLessEqual(ratio("llama-layers"), 1)
        test.assertLessEqual(ratio("llama-intermediate"), 1)
        test.assertLessEqual(ratio("llama-batch") * ratio("llama-seq"), 1)
    elif model == "vit-b16":
        test.assertEqual(shape["vit-width"] % shape["vit-heads"], 0)
        test.assertEqual(shape["vit-image"] % shape["vit-patch"], 0)
        test.assertLessEqual(ratio("vit-width"), 1)
        test.assertLessEqual(ratio("vit-layers"), 1)
        tokens = shape["vit-batch"] * ((shape["vit-image"] // shape["vit-patch"]) ** 2 + 1)
        test.assertLessEqual(tokens, preset["vit-batch"] * 197)
    else:
        test.assertIn(shape["resnet50-channels-last"], (0, 1))
        test.assertLessEqual(ratio("resnet50-batch") * ratio("resnet50-image") ** 2
                             * max(shape["resnet50-width"], 64) / 64, 1)


class ZooShapesTest(unittest.TestCase):
    def test_draws_differ_from_the_preset_and_stay_within_it(self):
        for model, preset in PRESETS.items():
            for seed in range(20):
                with self.subTest(model=model, seed=seed):
                    shapes = zoo_shapes.draw(model, text_preset(preset), seed, 3)
                    self.assertEqual([label for label, _ in shapes],
                                     ["preset", "draw-1", "draw-2", "draw-3"])
                    self.assertEqual(shapes[0][1],
                                     {k: preset[k] for k in zoo_shapes.RULES[model].options})
                    drawn = [shape for _, shape in shapes]
                    self.assertEqual(len({tuple(sorted(s.items())) for s in drawn}), 4)
                    for shape in drawn[1:]:
                        held_within_the_preset(self, model, shape, preset)

    def test_a_seed_gives_the_same_shapes(self):
        preset = text_preset(PRESETS["gpt2"])
        self.assertEqual(zoo_shapes.draw("gpt2", preset, 7, 3), zoo_shapes.draw("gpt2", preset,
                                                                                7, 3))
        others = {tuple(tuple(sorted(s.items())) for _, s in zoo_shapes.draw("gpt2", preset, seed,
                                                                              3))
                  for seed in range(10)}
        self.assertGreater(len(others), 1)
        # The first draws do not hang on how many are drawn.
        self.assertEqual(zoo_shapes.draw("gpt2", preset, 7, 1)[1],
                         zoo_shapes.draw("gpt2", preset, 7, 3)[1])

    def test_command_line_prints_the_options_that_change(self):
        path = os.path.join(tempfile.mkdtemp(), "vit-b16.ini")
        self.addCleanup(shutil.rmtree, os.path.dirname(path))
        with open(path, "w") as f:
            f.write("# a preset\nstep-models = vit-b16\n" +
                    "".join(f"{k} = {v}\n" for k, v in PRESETS["vit-b16"].items()))
        out_json = path + ".json"
        status, text = quiet(zoo_shapes.main, ["--model", "vit-b16", "--preset", path,
                                               "--seed", "11", "--draws", "2", "--json",
                                               out_json])
        self.assertEqual(status, 0, text)
        lines = text.splitlines()
        self.assertEqual(lines[0], "preset")
        with open(out_json) as f:
            document = json.load(f)
        self.assertEqual((document["seed"], len(document["shapes"])), (11, 3))
        for line, entry in zip(lines[1:], document["shapes"][1:]):
            label, *args = line.split()
            self.assertEqual(label, entry["label"])
            changed = {k: v for k, v in entry["shape"].items() if PRESETS["vit-b16"][k] != v}
            self.assertEqual(dict(zip((a[2:] for a in args[::2]), map(int, args[1::2]))),
                             changed)
            self.assertTrue(changed)

    def test_bad_input_exits_2(self):
        path = os.path.join(tempfile.mkdtemp(), "gpt2.ini")
        self.addCleanup(shutil.rmtree, os.path.dirname(path))
        with open(path, "w") as f:
            f.write("gpt2-layers = 12\n")
        for args in (["--model", "mlp", "--preset", path, "--seed", "1"],
                     ["--model", "gpt2", "--preset", path, "--seed", "1"],
                     ["--model", "gpt2", "--preset", path + ".missing", "--seed", "1"],
                     ["--model", "gpt2", "--preset", path, "--seed", "1", "--draws", "-1"]):
            with self.subTest(args=args):
                status, text = quiet(zoo_shapes.main, args)
                self.assertEqual(status, 2)
                self.assertTrue(text.startswith("zoo_shapes: "), text)
                self.assertEqual(len(text.strip().splitlines()), 1, text)

    def test_every_zoo_model_has_a_rule_and_its_preset_the_options(self):
        names = zoo_names()
        if not names:
            self.skipTest("no zoo model in analysis/splitstep_analysis/zoo yet")
        for name in names:
            module = eager_models.zoo_module(name)
            with self.subTest(model=module.NAME):
                self.assertIn(module.NAME, zoo_shapes.RULES)
                self.assertLessEqual(set(zoo_shapes.RULES[module.NAME].options),
                                     set(module.CPU_SHAPES[0]))
                preset = eager.read_ini(os.path.join(ROOT, "configs",
                                                         f"{module.NAME}.ini"))
                self.assertEqual(len(zoo_shapes.draw(module.NAME, preset, 3, 3)), 4)


if __name__ == "__main__":
    unittest.main()
