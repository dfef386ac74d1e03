"""`splitstep-analysis eager` with the twins of splitstep's mlp and recsys, and the tools that
compare splitstep with them (parity.py, kernel_table.py), on the CPU with tiny shapes."""
import contextlib
import csv
import io
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import kernel_table  # noqa: E402
import parity  # noqa: E402
from eager_support import EAGER, environment, parse_options, run_eager  # noqa: E402
from splitstep_analysis import eager, eager_models, eager_step  # noqa: E402

STEPS = 2
TINY = {"mlp-layers": 3, "mlp-width": 16, "mlp-batch": 4, "recsys-tables": 2, "recsys-rows": 32,
        "recsys-dim": 4, "recsys-bag": 3, "recsys-hidden": 8, "recsys-batch": 4}
TINY_SHAPE_ARGS = [arg for key, value in TINY.items() for arg in (f"--{key}", str(value))]
TINY_ARGS = ["--device", "cpu", "--warmup", "1", "--steps", str(STEPS)] + TINY_SHAPE_ARGS


# Parameter counts worked out by hand from splitstep's models (harness/models/Mlp.hpp,
# Recsys.hpp): a Linear(i, o) holds i*o + o, a table rows*dim.
def expected_parameters(model, s):
    if model == "recsys":
        features = s["recsys-tables"] * s["recsys-dim"]
        return (s["recsys-tables"] * s["recsys-rows"] * s["recsys-dim"]
                + features * s["recsys-hidden"] + s["recsys-hidden"] + s["recsys-hidden"] + 1)
    assert model == "mlp", model
    return s["mlp-layers"] * (s["mlp-width"] ** 2 + s["mlp-width"])


def run_twin(*args):
    """`splitstep-analysis eager` in this process, its table swallowed; the exit status."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return run_eager(TINY_ARGS + list(args))


def check_phases(test, document, ranks=1):
    """One value per timed step for every phase on every rank, the phases inside the step."""
    test.assertEqual([r["rank"] for r in document["ranks"]], list(range(ranks)))
    for rank in document["ranks"]:
        phases = rank["phases"]
        test.assertEqual(set(phases), {"step", "data", "forward", "loss", "backward",
                                       "optimizer"})
        for name, values in phases.items():
            test.assertEqual(len(values), STEPS, name)
            test.assertTrue(all(v >= 0 for v in values), name)
        for i in range(STEPS):
            test.assertGreater(phases["forward"][i], 0)
            test.assertGreater(phases["backward"][i], 0)
            # The phases lie inside the step, one after another.
            test.assertLessEqual(sum(phases[p][i] for p in eager_step.PHASES), phases["step"][i])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TwinModelsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def run_json(self, *args):
        path = os.path.join(self.dir.name, "twin.json")
        self.assertEqual(run_twin(*args, "--json", path), 0)
        with open(path) as f:
            return json.load(f)

    def check_phases(self, document, ranks=1):
        check_phases(self, document, ranks)

    def test_every_model_runs_in_fp32_and_bf16_and_writes_its_json(self):
        for model in eager_models.TWINS:
            for precision in ("fp32", "bf16"):
                with self.subTest(model=model, precision=precision):
                    document = self.run_json("--model", model, "--precision", precision)
                    self.assertEqual(document["tool"], "splitstep-analysis eager")
                    self.assertEqual((document["model"], document["precision"]),
                                     (model, precision))
                    self.assertEqual(document["parameters"], expected_parameters(model, TINY))
                    self.assertEqual((document["world_size"], document["ddp"],
                                      document["no_sync"]), (1, False, False))
                    self.assertEqual(document["device"], "cpu")
                    self.check_phases(document)

    def test_fp16_scales_the_loss_and_still_steps(self):
        document = self.run_json("--model", "mlp", "--precision", "fp16")
        self.check_phases(document)

    def test_shapes_follow_the_options(self):
        self.assertEqual(self.run_json("--model", "mlp")["shape"],
                         {"layers": 3, "width": 16, "batch": 4})
        self.assertEqual(self.run_json("--model", "mlp", "--mlp-width", "8")["shape"],
                         {"layers": 3, "width": 8, "batch": 4})

    def test_reference_presets_have_splitstep_parameter_counts(self):
        defaults = {o.name: o.default for o in eager.OPTIONS}
        # docs/step.md: the reference MLP has 536,936,448 parameters in 16 tensors.
        self.assertEqual(expected_parameters("mlp", defaults), 536_936_448)
        # Built at a quarter of the width (the full one is 2 GiB): the count the formula gives.
        shape = {"layers": 8, "width": 2048}
        model = eager_models.twin_spec("mlp").build(shape)
        self.assertEqual(sum(p.numel() for p in model.parameters()),
                         expected_parameters("mlp", {"mlp-layers": 8, "mlp-width": 2048}))
        self.assertEqual(len(list(model.parameters())), 2 * 8)
        # The count torch.nn's EmbeddingBag and Linear give at recsys's defaults on the meta
        # device, which tests/unit/StepMemoryTest.cpp holds splitstep's module to.
        self.assertEqual(expected_parameters("recsys", defaults), 1_074_792_449)
        shape = {"tables": 3, "rows": 1000, "dim": 16, "hidden": 64}
        model = eager_models.twin_spec("recsys").build(shape)
        self.assertEqual(sum(p.numel() for p in model.parameters()), expected_parameters(
            "recsys", {f"recsys-{k}": v for k, v in shape.items()}))

    def test_parameter_names_and_order_are_splitstep_s(self):
        def names(model):
            shape = eager_models.twin_shape(model, dict(
                {o.name: o.default for o in eager.OPTIONS}, **TINY))
            return [n for n, _ in eager_models.twin_spec(model).build(shape).named_parameters()]

        self.assertEqual(names("mlp"), ["linear0.weight", "linear0.bias", "linear1.weight",
                                        "linear1.bias", "linear2.weight", "linear2.bias"])
        # RecsysModule.cpp registers its two Linear layers before the tables.
        self.assertEqual(names("recsys"), ["hidden.weight", "hidden.bias", "out.weight",
                                           "out.bias", "table0.weight", "table1.weight"])

    def test_batches_are_seeded_per_rank(self):
        import torch
        shape = {"layers": 1, "width": 8, "batch": 5}
        draw = eager_models.twin_spec("mlp").host_batch

        def batch(rank):
            return draw(shape, torch.Generator().manual_seed(eager_models.batch_seed(rank)))

        inputs, target = batch(0)
        self.assertEqual((inputs.shape, inputs.dtype), ((5, 8), torch.float32))
        self.assertEqual((target.shape, target.dtype), ((5, 8), torch.float32))
        self.assertFalse(torch.equal(inputs, target))  # drawn one after the other
        self.assertTrue(torch.equal(inputs, batch(0)[0]))
        self.assertFalse(torch.equal(inputs, batch(1)[0]))

    def test_optimizers_and_inputs(self):
        for optimizer, impl in (("sgd", "loop"), ("sgd", "foreach"), ("adamw", "fused")):
            with self.subTest(optimizer=optimizer, impl=impl):
                document = self.run_json("--model", "mlp", "--optimizer", optimizer,
                                         "--optimizer-impl", impl, "--input", "pageable")
                self.assertEqual((document["optimizer"], document["optimizer_impl"],
                                  document["optimizer_impl_default"], document["input"]),
                                 (optimizer, impl, False, "pageable"))
                self.check_phases(document)
        document = self.run_json("--model", "mlp")
        # Nothing asked: torch.optim's own choice, the loop on the CPU.
        self.assertEqual((document["optimizer_impl"], document["optimizer_impl_default"]),
                         ("loop", True))

    def test_optimizer_only_times_the_optimizer_step_alone(self):
        document = self.run_json("--model", "mlp", "--optimizer", "adamw", "--optimizer-only")
        self.assertTrue(document["optimizer_only"])
        phases = document["ranks"][0]["phases"]
        self.assertEqual(list(phases), ["optimizer"])
        self.assertEqual(len(phases["optimizer"]), STEPS)

    def test_profile_writes_a_chrome_trace_per_rank(self):
        self.run_json("--model", "mlp", "--profile", self.dir.name)
        with open(os.path.join(self.dir.name, "twin-mlp-rank0.json")) as f:
            trace = json.load(f)
        self.assertTrue(any(e.get("name") == "aten::addmm" for e in trace["traceEvents"]))

    def test_config_is_read_and_the_command_line_wins(self):
        path = os.path.join(self.dir.name, "step.ini")
        with open(path, "w") as f:
            f.write("# a preset\nstep-models = mlp\nprecision = fp32  # inline comment\n"
                    "optimizer = adamw\nsync-modes = none,overlap\nmlp-width = 6\n"
                    "mlp-layers = 2\nsamples = 7\nwarmup = 4\njson = ignored.json\n")
        options = parse_options(["--config", path, "--mlp-width", "5"])
        self.assertEqual((options["model"], options["precision"], options["optimizer"]),
                         ("mlp", "fp32", "adamw"))
        self.assertEqual((options["mlp-width"], options["mlp-layers"], options["steps"],
                          options["warmup"]), (5, 2, 7, 4))
        self.assertIsNone(options["json"])  # the twin's own output is never read from a preset
        self.assertEqual(parse_options(["--config", path, "--model", "mlp",
                                                  "--samples", "3"])["steps"], 3)

    def test_bad_options_exit_2(self):
        path = os.path.join(self.dir.name, "two.ini")
        with open(path, "w") as f:
            f.write("step-models = mlp,vit-b16\n")
        self.assertEqual(run_twin("--config", path), 2)  # one model per run
        # A zoo model has no twin: its anchor is the library's model, run --like splitstep.
        self.assertEqual(run_twin("--model", "gpt2"), 2)
        self.assertEqual(run_twin("--momentum", "0.9", "--optimizer", "adamw"), 2)
        self.assertEqual(run_twin("--no-sync"), 2)
        self.assertEqual(run_twin("--precision", "tf32"), 2)
        self.assertEqual(run_twin("--config", os.path.join(self.dir.name, "missing.ini")), 2)
        result = subprocess.run([*EAGER, "--lr", "-1"], capture_output=True, text=True,
                                env=environment())
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stderr.strip(),
                         "splitstep-analysis eager: --lr: -1.0 is out of range (0, inf)")


class TwinDdpTest(unittest.TestCase):
    """--ddp under mpirun: two ranks on gloo."""

    def setUp(self):
        # CTest names the mpiexec CMake found; run by hand, the one on PATH.
        self.mpirun = os.environ.get("SPLITSTEP_MPIEXEC")
        if not (self.mpirun and os.access(self.mpirun, os.X_OK)):
            self.mpirun = shutil.which("mpirun")
        if not self.mpirun:
            self.skipTest("mpirun not on PATH: the --ddp twin is not tested")
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def run_ranks(self, *args):
        version = subprocess.run([self.mpirun, "--version"], capture_output=True, text=True)
        # Open MPI refuses more ranks than cores unless told, and root unless consented.
        extra = ["--oversubscribe"] if "Open MPI" in version.stdout + version.stderr else []
        env = dict(environment(), OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMP_NUM_THREADS="1", MASTER_PORT=str(free_port()))
        path = os.path.join(self.dir.name, "twin.json")
        result = subprocess.run([self.mpirun, "-np", "2", *extra, *EAGER, "--ddp", *TINY_ARGS, *args, "--json", path],
                                capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        with open(path) as f:
            return json.load(f)

    def check(self, document, no_sync):
        self.assertEqual((document["world_size"], document["ddp"], document["no_sync"]),
                         (2, True, no_sync))
        check_phases(self, document, ranks=2)

    def test_ddp_and_no_sync_on_two_ranks(self):
        self.check(self.run_ranks("--model", "mlp"), no_sync=False)
        # Buckets other than DDP's default sizes.
        self.check(self.run_ranks("--model", "mlp", "--no-sync", "--bucket-mb", "0.001",
                                  "--first-bucket-mb", "0.0005"), no_sync=True)


# --- parity.py -----------------------------------------------------------------------------------

MS = 1e-3


def splitstep_document(cases):
    """A results file of the documented schema holding step cases: (mode, world size,
    {series: {rank: [seconds per sample]}}, parameters)."""
    entries = []
    for mode, world, series, parameters in cases:
        for name, per_rank in series.items():
            medians = [statistics.median(v) for v in per_rank.values()]
            entries.append({
                "suite": "step", "case": f"mlp bf16 {mode}", "series": name,
                "part_of": "" if name == "step" else "step", "skipped": False, "unit": "s",
                "params": {"model": "mlp", "precision": "bf16", "mode": mode,
                           "optimizer": "sgd", "input": "device", "world_size": str(world),
                           "parameters": str(parameters), "batch": "4"},
                "across_ranks": {"n": len(medians), "median": statistics.median(medians)},
                "ranks": [{"rank": r, "values": v, "summary": {"median": statistics.median(v)}}
                          for r, v in per_rank.items()]})
    return {"schema": "splitstep.results/1", "metadata": {}, "plan": {}, "ranks": [],
            "cases": entries, "derived": []}


def twin_document(ranks, ddp=False, no_sync=False, optimizer_only=False, parameters=816):
    return {"tool": eager_step.TOOL, "torch": "2.11.0", "device": "cpu", "model": "mlp",
            "precision": "bf16", "optimizer": "sgd", "optimizer_impl": "foreach",
            "optimizer_impl_default": True, "input": "device", "world_size": len(ranks),
            "ddp": ddp, "no_sync": no_sync, "optimizer_only": optimizer_only,
            "parameters": parameters, "shape": {},
            "ranks": [{"rank": r, "phases": p} for r, p in enumerate(ranks)]}


def constant(**phases):
    """Twin phases in ms, three equal samples each."""
    return {name: [value * MS] * 3 for name, value in phases.items()}


# The user's own model, as `splitstep-analysis export` is given it: factories in a module.
FACTORIES = """
import torch


def model():
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 4))


def wider():
    return torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.GELU(), torch.nn.Linear(32, 4))


def batch():
    generator = torch.Generator().manual_seed(3)
    return torch.randn(6, 8, generator=generator), torch.randint(0, 4, (6,), generator=generator)


def loss(output, target):
    return torch.nn.functional.cross_entropy(output, target)
"""
SPLITSTEP = os.environ.get("SPLITSTEP", os.path.join(ROOT, "build", "splitstep"))


class ExportedModelTest(unittest.TestCase):
    """--like a run of an exported model: the user's factories, trained in eager PyTorch."""

    @classmethod
    def setUpClass(cls):
        if not os.access(SPLITSTEP, os.X_OK):
            raise unittest.SkipTest(f"no splitstep at {SPLITSTEP} (SPLITSTEP names it)")
        cls.dir = tempfile.mkdtemp()
        with open(os.path.join(cls.dir, "mine.py"), "w") as f:
            f.write(FACTORIES)
        env = dict(environment(), OMP_NUM_THREADS="1")
        subprocess.run([sys.executable, "-m", "splitstep_analysis", "export", "mine:model",
                        "--batch", "mine:batch", "--loss", "cross-entropy",
                        "-o", "mine.pt2"], cwd=cls.dir, env=env, check=True,
                       capture_output=True, timeout=300)
        cls.results = os.path.join(cls.dir, "results.json")
        subprocess.run([SPLITSTEP, "step", "--model-file", "mine.pt2", "--device", "cpu",
                        "--sync-modes", "single", "--precision", "fp32", "--samples", "3",
                        "--warmup", "1", "--check", "off", "--telemetry", "off", "--quiet",
                        "--json", cls.results], cwd=cls.dir, env=env, check=True,
                       capture_output=True, timeout=300)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def eager(self, *args, cwd=None):
        """(exit status, the JSON or None, stdout and stderr), run in `cwd` (default: the folder
        of the results, the archive and the factories)."""
        path = os.path.join(self.dir, "eager.json")
        if os.path.exists(path):
            os.remove(path)
        env = environment()
        env.update(OMP_NUM_THREADS="1", PYTHONPATH=f"{self.dir}{os.pathsep}{env['PYTHONPATH']}")
        result = subprocess.run([*EAGER, "--like", self.results, *args, "--json", path],
                                cwd=cwd or self.dir, env=env, capture_output=True, text=True,
                                timeout=300)
        document = None
        if result.returncode == 0:
            with open(path) as f:
                document = json.load(f)
        return result.returncode, document, result.stdout + result.stderr

    def test_the_factories_train_as_splitstep_trained_the_archive(self):
        status, document, text = self.eager("--model-factory", "mine:model",
                                            "--batch-factory", "mine:batch")
        self.assertEqual(status, 0, text)
        self.assertEqual((document["reference"], document["model"], document["precision"]),
                         ("exported", "exported", "fp32"))
        # The loss the archive recorded, where none is named.
        self.assertEqual(document["factories"],
                         {"model": "mine:model", "batch": "mine:batch", "loss": "cross-entropy"})
        self.assertEqual(document["parameters"], 8 * 16 + 16 + 16 * 4 + 4)
        self.assertEqual(document["steps"], 3)
        phases = document["ranks"][0]["phases"]
        self.assertEqual(set(phases), {"step", *eager_step.PHASES})
        for phase, values in phases.items():
            self.assertEqual(len(values), 3, phase)
            self.assertTrue(all(v > 0 for v in values), phase)
        self.assertIn("exported model's factories: mine:model", text)
        status, document, text = self.eager("--model-factory", "mine:model",
                                            "--batch-factory", "mine:batch", "--loss", "mine:loss")
        self.assertEqual(status, 0, text)
        self.assertEqual(document["factories"]["loss"], "mine:loss")
        # From another folder, the run's relative --model-file is found beside its results.
        status, document, text = self.eager("--model-factory", "mine:model",
                                            "--batch-factory", "mine:batch", cwd=ROOT)
        self.assertEqual(status, 0, text)
        self.assertEqual(document["factories"]["loss"], "cross-entropy")

    def test_refusals_name_what_is_wrong(self):
        for args, message in (
                ((), "trained an exported model (--model-file mine.pt2): name the factories it "
                     "was exported from, --model-factory and --batch-factory"),
                (("--model-factory", "mine:model"), "name the factories"),
                (("--model-factory", "mine:wider", "--batch-factory", "mine:batch"),
                 "--model-factory's model has 420 parameters, splitstep's 212: not the same model"),
                (("--model-factory", "mine:nothing", "--batch-factory", "mine:batch"),
                 "--model-factory mine:nothing: mine has no function nothing"),
                (("--model-factory", "mine:model", "--batch-factory", "mine:batch",
                  "--loss", "hinge"), "loss 'hinge' is not MODULE:NAME")):
            with self.subTest(args=args):
                status, _, text = self.eager(*args)
                self.assertEqual(status, 2, text)
                self.assertIn(message, text)
                self.assertEqual(len(text.strip().splitlines()), 1, text)

    def test_factories_need_the_results_of_an_exported_model(self):
        self.assertEqual(run_twin("--model-factory", "mine:model"), 2)  # no --like
        status, _, text = self.eager("--model-factory", "mine:model", "--ddp")
        self.assertEqual(status, 2, text)  # no overlap case in the file


class TwinLikeTest(unittest.TestCase):
    """--like a run of splitstep's own mlp and recsys: each twin is built at the run's shape and
    must have the parameter count of splitstep's module, or the command refuses it."""

    @classmethod
    def setUpClass(cls):
        if not os.access(SPLITSTEP, os.X_OK):
            raise unittest.SkipTest(f"no splitstep at {SPLITSTEP} (SPLITSTEP names it)")
        cls.dir = tempfile.mkdtemp()
        cls.results = os.path.join(cls.dir, "results.json")
        subprocess.run([SPLITSTEP, "step", "--step-models", "mlp,recsys", "--device", "cpu",
                        "--sync-modes", "single", "--precision", "fp32", "--samples", "3",
                        "--warmup", "1", "--check", "off", "--telemetry", "off", "--quiet",
                        "--json", cls.results, *TINY_SHAPE_ARGS], env=dict(environment(),
                        OMP_NUM_THREADS="1"), check=True, capture_output=True, timeout=300)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_each_twin_trains_at_splitstep_s_shape_and_count(self):
        for model, shape in (("mlp", {"layers": 3, "width": 16, "batch": 4}),
                             ("recsys", {"tables": 2, "rows": 32, "dim": 4, "bag": 3,
                                         "hidden": 8, "batch": 4})):
            with self.subTest(model=model):
                path = os.path.join(self.dir, f"twin-{model}.json")
                with contextlib.redirect_stdout(io.StringIO()):
                    self.assertEqual(run_eager(["--like", self.results, "--model", model,
                                                "--json", path]), 0)
                with open(path) as f:
                    document = json.load(f)
                self.assertEqual((document["reference"], document["shape"]), ("twin", shape))
                self.assertEqual(document["parameters"], expected_parameters(model, TINY))
                self.assertEqual(len(document["ranks"][0]["phases"]["step"]), 3)


class ParityTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, document):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            json.dump(document, f)
        return path

    def parity(self, *files):
        out = io.StringIO()
        csv_path = os.path.join(self.dir.name, "parity.csv")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = parity.main([*files, "--csv", csv_path])
        rows = {}
        if status == 0:
            with open(csv_path) as f:
                rows = {(r["mode"], r["phase"]): r for r in csv.DictReader(f)}
        return status, out.getvalue(), rows

    def test_ratios_verdicts_and_pairing(self):
        def ms(*values):
            return [v * MS for v in values]

        overlap = {
            "forward": {0: ms(10.1, 10.1, 10.1), 1: ms(10.1, 10.1, 10.1)},
            # Per sample, rank 0's backward + sync is 14, 13, 14 (median 14, where the sum of
            # the medians would be 13); rank 1's is 12 throughout: 13 over ranks.
            "backward": {0: ms(10, 12, 14), 1: ms(11, 11, 11)},
            "sync": {0: ms(4, 1, 0), 1: ms(1, 1, 1)},
            "optimizer": {0: ms(3, 3, 3), 1: ms(3, 3, 3)},
            "step": {0: ms(19, 19, 19), 1: ms(19, 19, 19)},
        }
        alone = {name: {0: ms(v, v, v)} for name, v in
                 (("forward", 10), ("backward", 20), ("optimizer", 2), ("step", 33))}
        no_sync = {name: {0: ms(v, v, v), 1: ms(v + 2, v + 2, v + 2)} for name, v in
                   (("forward", 10), ("backward", 20), ("optimizer", 2), ("step", 33))}
        document = splitstep_document(
            [("overlap", 2, overlap, 816), ("single", 2, alone, 816), ("none", 2, no_sync, 816),
             ("sequential", 2, overlap, 816)])
        # A detail series of the overlapped case (a bucket's timeline) is no phase: left out.
        detail = dict(document["cases"][0], series="bucket 0 comm", detail=True)
        document["cases"].append(detail)
        splitstep = self.write("splitstep.json", document)
        ddp = self.write("twin-ddp.json", twin_document(
            [constant(forward=10, backward=13, optimizer=2, step=20)] * 2, ddp=True))
        single = self.write("twin-1.json", twin_document(
            [constant(forward=10, backward=20, optimizer=2, step=30)]))
        # Another model (other parameter count) must not stand in for the no_sync run.
        other = self.write("twin-other.json", twin_document(
            [constant(forward=1, backward=1, optimizer=1, step=1)] * 2, ddp=True, no_sync=True,
            parameters=999))
        alone_optimizer = self.write("twin-opt.json", twin_document(
            [{"optimizer": [2.5 * MS] * 3}], optimizer_only=True))

        status, text, rows = self.parity(splitstep, ddp, single, other, alone_optimizer)
        self.assertEqual(status, 0, text)
        expected = {
            ("overlap", "forward"): (10.1, 10, 1.01, "ok"),
            ("overlap", "backward + sync"): (13, 13, 1.0, "ok"),
            ("overlap", "optimizer"): (3, 2, 1.5, "slower"),
            ("overlap", "step"): (19, 20, 0.95, "faster"),
            ("overlap", "optimizer alone"): (3, 2.5, 1.2, "slower"),
            ("single", "backward"): (20, 20, 1.0, "ok"),
            ("single", "step"): (33, 30, 1.1, "slower"),
        }
        for key, (s, t, ratio, verdict) in expected.items():
            with self.subTest(row=key):
                row = rows[key]
                self.assertAlmostEqual(float(row["splitstep_s"]), s * MS)
                self.assertAlmostEqual(float(row["reference_s"]), t * MS)
                self.assertAlmostEqual(float(row["ratio"]), ratio)
                self.assertEqual(row["verdict"], verdict)
                self.assertEqual(row["world_size"], "2")
        self.assertEqual(rows[("single", "optimizer alone")]["verdict"], "faster")
        self.assertEqual(len(rows), 10)  # overlap and single 5 each; none, sequential unpaired
        self.assertNotIn(("none", "step"), rows)
        self.assertIn("mlp bf16 none (2 rank(s)): no twin run", text)
        self.assertIn("mlp bf16 sequential (2 rank(s)): PyTorch DDP has no such mode", text)
        self.assertIn("5 of 10 rows within 2%", text)
        self.assertRegex(text, r"overlap\s+2\s+backward \+ sync\s+13\.000\s+13\.000\s+1\.000\s+ok")

        # A wider tolerance turns the 5% step gap into ok.
        with contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(parity.main([splitstep, ddp, single, "--tolerance", "6%"]), 0)
        self.assertIn("6 of 8 rows within 6%", out.getvalue())

    def test_one_rank_none_pairs_with_the_twin_alone(self):
        times = {name: {0: [v * MS] * 3} for name, v in (("forward", 1), ("backward", 2),
                                                          ("optimizer", 1), ("step", 4))}
        splitstep = self.write("s.json", splitstep_document([("none", 1, times, 816)]))
        twin = self.write("t.json", twin_document(
            [constant(forward=1, backward=2, optimizer=1, step=4)]))
        status, text, rows = self.parity(splitstep, twin)
        self.assertEqual(status, 0, text)
        self.assertEqual({k: r["verdict"] for k, r in rows.items()},
                         {("none", p): "ok" for p in ("forward", "backward", "optimizer", "step")})

    def test_a_graphed_case_has_no_twin_and_is_left_out(self):
        # --step-graphs adds "<case> graphed", whose only series are the whole step and its
        # busy time, with the field launch "graph": the twin launches eagerly, so it is no pair.
        times = {name: {0: [v * MS] * 3} for name, v in (("forward", 1), ("backward", 2),
                                                          ("optimizer", 1), ("step", 4))}
        document = splitstep_document([("none", 1, times, 816)])
        last = document["cases"][-1]
        graphed = dict(last, case="mlp bf16 none graphed",
                       params=dict(last["params"], launch="graph"))
        document["cases"].append(graphed)
        splitstep = self.write("s.json", document)
        self.assertEqual([c.mode for c in parity.splitstep_cases(splitstep, document)], ["none"])
        twin = self.write("t.json", twin_document(
            [constant(forward=1, backward=2, optimizer=1, step=4)]))
        status, text, rows = self.parity(splitstep, twin)
        self.assertEqual(status, 0, text)
        self.assertEqual(len(rows), 4)

    def test_malformed_inputs_exit_2(self):
        twin = self.write("t.json", twin_document([constant(forward=1, backward=1, optimizer=1,
                                                             step=1)]))
        splitstep = self.write("s.json", splitstep_document([]))
        broken = os.path.join(self.dir.name, "broken.json")
        with open(broken, "w") as f:
            f.write("{not json")
        no_case = self.write("nocase.json", {"schema": "splitstep.results/1", "cases": [
            {"suite": "step", "case": "x", "series": "step", "skipped": False, "params": {}}]})
        no_forward = splitstep_document([("none", 1, {"step": {0: [MS]}}, 816)])
        for files in ((broken, twin), (twin,), (splitstep, twin), (no_case, twin),
                      (self.write("noforward.json", no_forward), twin),
                      (self.write("other.json", {"schema": "other"}), twin)):
            with self.subTest(files=[os.path.basename(f) for f in files]):
                status, text, _ = self.parity(*files)
                self.assertEqual(status, 2)
                self.assertEqual(len(text.strip().splitlines()), 1, text)
                self.assertTrue(text.startswith("parity: "), text)


# --- kernel_table.py -----------------------------------------------------------------------------


def trace(kernels):
    """A chrome trace: (name, microseconds) kernels, with CPU events that must be left out."""
    events = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "dur": 500.0, "ts": 0}]
    events += [{"ph": "X", "cat": "kernel", "name": name, "dur": dur, "ts": i}
               for i, (name, dur) in enumerate(kernels)]
    return {"schemaVersion": 1, "traceEvents": events}


class KernelTableTest(unittest.TestCase):
    def test_sums_per_step_and_kernels_in_one_trace_only(self):
        with tempfile.TemporaryDirectory() as d:
            first = os.path.join(d, "splitstep.json")
            second = os.path.join(d, "twin.json")
            with open(first, "w") as f:
                json.dump(trace([("gemm", 100), ("gemm", 110), ("gemm", 90), ("gelu", 30),
                                 ("gelu", 30), ("gelu", 30), ("copy", 60)]), f)
            with open(second, "w") as f:
                json.dump(trace([("gemm", 80), ("gemm", 80), ("gemm", 80), ("gelu", 15),
                                 ("gelu", 15), ("gelu", 15), ("fused_adam", 9)]), f)
            a = kernel_table.load_kernels(first, 3)
            b = kernel_table.load_kernels(second, 3)
            self.assertEqual(a, {"gemm": (100.0, 1.0), "gelu": (30.0, 1.0), "copy": (20.0, 1 / 3)})
            self.assertEqual(b["gemm"], (80.0, 1.0))
            self.assertEqual(b["fused_adam"], (3.0, 1 / 3))

            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(kernel_table.main([first, second, "--steps", "3"]), 0)
            lines = out.getvalue().splitlines()
            # Largest first, by the larger of the two times.
            self.assertRegex(lines[2], r"^\s+100\.0\s+80\.0\s+\+20\.0\s+1\.0\s+1\.0\s+gemm$")
            self.assertRegex(lines[3], r"^\s+30\.0\s+15\.0\s+\+15\.0\s+1\.0\s+1\.0\s+gelu$")
            text = out.getvalue()
            self.assertIn("all kernels per step: splitstep 150.0 us, twin 98.0 us, "
                          "difference +52.0 us (ratio 1.531)", text)
            self.assertIn("only in splitstep: 1 kernel(s), 20.0 us per step", text)
            self.assertIn("only in twin: 1 kernel(s), 3.0 us per step", text)

            # Different step counts per trace: the second profiled one step.
            with contextlib.redirect_stdout(io.StringIO()) as out:
                kernel_table.main([first, second, "--steps", "3,1", "--top", "1"])
            self.assertIn("twin 294.0 us", out.getvalue())

    def test_cpu_operations_that_compute_at_every_depth(self):
        def op(name, ts, dur, tid=1, cat="cpu_op"):
            return {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur, "tid": tid}
        events = [op("aten::linear", 0, 10), op("aten::t", 1, 1), op("aten::addmm", 2, 7),
                  op("aten::resolve_conj", 3, 1), op("aten::empty", 4, 1),
                  op("aten::view", 11, 1), op("aten::copy_", 12, 2),
                  op("AddmmBackward0", 20, 5), op("aten::mm", 21, 3),
                  op("transformers find_packed_sequence_indices", 30, 10, cat="user_annotation"),
                  op("aten::cumsum", 31, 2), op("aten::item", 34, 4),
                  op("aten::_local_scalar_dense", 35, 2), op("aten::cumsum", 36, 1, tid=2)]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "cpu.json")
            with open(path, "w") as f:
                json.dump({"traceEvents": events}, f)
            ops = kernel_table.load_cpu_ops(path, 1)
            # Views (t, view, resolve_conj), allocations and autograd's nodes count for nothing.
            self.assertEqual({n: k.calls for n, k in ops.items()},
                             {"aten::linear": 1, "aten::addmm": 1, "aten::copy_": 1,
                              "aten::mm": 1, "aten::cumsum": 2, "aten::item": 1,
                              "aten::_local_scalar_dense": 1})
            # Inside the scope, on its thread only.
            inside = kernel_table.load_cpu_ops(path, 1, within="transformers")
            self.assertEqual({n: k.calls for n, k in inside.items()},
                             {"aten::cumsum": 1, "aten::item": 1,
                              "aten::_local_scalar_dense": 1})
            # The graph may lack what eager ran inside the scope, and nothing else.
            graph = {n: k for n, k in ops.items()
                     if n not in ("aten::item", "aten::_local_scalar_dense")}
            graph["aten::cumsum"] = kernel_table.KernelTime(0.0, 1.0)
            differences = kernel_table.list_differences(graph, ops)
            self.assertEqual(len(differences), 3)
            self.assertEqual(kernel_table.beyond_scopes(differences, inside), [])
            graph["aten::mm"] = kernel_table.KernelTime(0.0, 0.0)
            self.assertEqual(kernel_table.beyond_scopes(
                kernel_table.list_differences(graph, ops), inside), [("aten::mm", 0.0, 1.0)])

    def test_kernels_launched_inside_a_scope(self):
        events = [
            {"ph": "X", "cat": "user_annotation", "name": "transformers x", "ts": 10, "dur": 10,
             "tid": 1},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 12, "dur": 1,
             "tid": 1, "args": {"correlation": 7}},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 30, "dur": 1,
             "tid": 1, "args": {"correlation": 8}},
            {"ph": "X", "cat": "kernel", "name": "cumsum", "ts": 40, "dur": 3,
             "args": {"correlation": 7}},
            {"ph": "X", "cat": "kernel", "name": "gemm", "ts": 45, "dur": 9,
             "args": {"correlation": 8}}]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "gpu.json")
            with open(path, "w") as f:
                json.dump({"traceEvents": events}, f)
            self.assertEqual(set(kernel_table.load_kernels(path, 1)), {"cumsum", "gemm"})
            self.assertEqual(kernel_table.load_kernels(path, 1, within="transformers"),
                             {"cumsum": (3.0, 1.0)})


if __name__ == "__main__":
    unittest.main()
