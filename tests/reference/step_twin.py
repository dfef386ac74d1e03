#!/usr/bin/env python3
"""A training step in PyTorch eager, timed phase by phase as splitstep times its own: for a zoo
model, the library's own model (the anchor); for splitstep's mlp, which reproduces no library, a
twin.

The anchor (`--like results.json`) builds the library model a zoo model reproduces (timm,
torchvision, transformers; tests/reference/zoo/models/<name>.py) at exactly the shape, precision,
optimizer, input, warm-up and sample count of a splitstep run, all read from its results file,
and refuses a library model whose parameter count is not splitstep's. The twin has splitstep's
architecture (harness/models/MlpModule.cpp), parameter names and registration order, synthetic
data, loss and precision handling. docs/parity.md says how the phases map onto splitstep's and
how tests/reference/parity.py compares them.

  python3 step_twin.py --like splitstep.json --precision bf16 --json anchor.json --profile DIR
  python3 step_twin.py --model mlp --precision bf16 --json twin.json
  mpirun -np 2 python3 step_twin.py --ddp --config configs/h200-step.ini --model mlp
  mpirun -np 2 python3 step_twin.py --ddp --no-sync ...      # DDP under no_sync(): compute only

The twin's options mirror splitstep's names and read the same INI presets (`--config`, the
command line wins); a list-valued key (step-models = mlp,vit-b16) needs the one value for this
run on the command line (--model).
"""
import argparse
import contextlib
import gc
import importlib.metadata
import importlib.util
import json
import os
import pathlib
import statistics
import sys
import time
from typing import Callable, NamedTuple

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

MODEL_SEED = 2026  # splitstep's kModelSeed: every rank starts from the same parameters
PHASES = ("data", "forward", "loss", "backward", "optimizer")
PROFILED_STEPS = 3
MODELS = ("mlp",)  # the models with a twin
# The zoo's library models, one module per zoo model of splitstep (zoo/models/README.md).
ZOO_MODELS = pathlib.Path(__file__).resolve().parent / "zoo" / "models"
# The packages a zoo model may come from, whose versions the anchor's JSON records.
LIBRARIES = ("torch", "timm", "torchvision", "transformers")
# The results schemas --like reads (docs/results-schema.md): 2 keeps a case's typed values in
# "fields", 1 kept them as text in "params".
RESULTS_SCHEMAS = ("splitstep.results/1", "splitstep.results/2")


def batch_seed(rank):
    """splitstep's batchSeed: each rank trains on its own batch."""
    return 1000 + rank


# --- models -------------------------------------------------------------------------------------
# Submodules are registered under splitstep's names and in its order: DDP fills its buckets in
# reverse registration order, and splitstep's buckets follow the same order.


def add_numbered(module, prefix, count, make):
    """Registers prefix0, prefix1, ... (splitstep's names, not nn.ModuleList's "blocks.0") and
    returns them in order."""
    for i in range(count):
        module.add_module(f"{prefix}{i}", make())
    return [getattr(module, f"{prefix}{i}") for i in range(count)]


class Mlp(nn.Module):
    """N x (Linear(d, d) + GELU)."""

    def __init__(self, layers, width):
        super().__init__()
        self.layers = add_numbered(self, "linear", layers, lambda: nn.Linear(width, width))

    def forward(self, x):
        for layer in self.layers:
            x = F.gelu(layer(x))
        return x


def call_model(model, x):
    return model(x)


class ModelSpec(NamedTuple):
    """What splitstep's Workload declares for a model: its shape options, how to build it,
    its synthetic host batch (input, target), its forward and its loss."""

    shape_options: tuple  # option names; a twin's shape is keyed by their last word
    build: Callable
    host_batch: Callable  # (shape, generator) -> (input, target), drawn in splitstep's order
    loss: Callable
    forward: Callable = call_model  # (model, input) -> the output the loss takes


SPECS = {
    "mlp": ModelSpec(
        ("mlp-layers", "mlp-width", "mlp-batch"),
        lambda s: Mlp(s["layers"], s["width"]),
        lambda s, g: (torch.randn(s["batch"], s["width"], generator=g),
                      torch.randn(s["batch"], s["width"], generator=g)),
        lambda output, target: F.mse_loss(output.float(), target)),
}


# --- options ------------------------------------------------------------------------------------


class UsageError(Exception):
    """A bad option or config value: one line, exit status 2."""


class Option(NamedTuple):
    name: str                     # splitstep's long option name, which is also its INI key
    parse: Callable[[str], object]
    default: object
    help: str
    aliases: tuple = ()           # further names, on the command line and in the INI file


def choice(*names):
    def parse(text):
        if text not in names:
            raise ValueError(f"'{text}' is not one of {', '.join(names)} (one value per run)")
        return text
    return parse


def number(kind, low, high=None, low_open=False):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise ValueError(f"'{text}' is not {'an integer' if kind is int else 'a number'}")
        if value < low or (low_open and value == low) or (high is not None and value >= high):
            bounds = f"{'(' if low_open else '['}{low}, {high if high is not None else 'inf'})"
            raise ValueError(f"{value} is out of range {bounds}")
        return value
    return parse


def switch(text):
    if text not in ("on", "off"):
        raise ValueError(f"'{text}' is neither on nor off")
    return text == "on"


positive_int = number(int, 1)

OPTIONS = (
    Option("model", choice(*MODELS), "mlp", "the model to train", ("step-models",)),
    Option("precision", choice("fp32", "bf16", "fp16"), "bf16",
           "fp32 (TF32 off for products), bf16 or fp16 autocast over fp32 weights"),
    Option("optimizer", choice("sgd", "adamw"), "sgd", "torch.optim.SGD or AdamW"),
    Option("optimizer-impl", choice("loop", "foreach", "fused"), None,
           "torch.optim's foreach=False, foreach=True or fused=True (default: pass nothing)"),
    Option("lr", number(float, 0, low_open=True), 0.01, "learning rate"),
    Option("momentum", number(float, 0, 1), 0.0, "SGD momentum"),
    Option("input", choice("device", "pinned", "pageable"), "device",
           "device: the batch stays on the GPU; pinned/pageable: copied from host every step"),
    Option("non-blocking", switch, True, "host-to-device copy with non_blocking (on, off)"),
    Option("host-work-ms", number(float, 0), 0.0, "busy host work per batch before its copy"),
    Option("bucket-mb", number(float, 0, low_open=True), 25.0, "DDP bucket size in MiB"),
    Option("first-bucket-mb", number(float, 0, low_open=True), 1.0,
           "DDP's first bucket in MiB"),
    Option("device", choice("auto", "cuda", "cpu"), "auto", "auto: a GPU if one is visible"),
    Option("warmup", number(int, 0), 3, "untimed steps before the timed ones"),
    Option("steps", positive_int, 15, "timed steps, one per sample", ("samples",)),
    Option("mlp-layers", positive_int, 8, "mlp: Linear + GELU layers"),
    Option("mlp-width", positive_int, 8192, "mlp: width"),
    Option("mlp-batch", positive_int, 8192, "mlp: batch per rank"),
)


def read_ini(path):
    """splitstep's INI presets: `key = value` lines, `#` comments."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise UsageError(f"--config: cannot read '{path}': {e.strerror}")
    values = {}
    for line_number, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{path}:{line_number}: not a 'key = value' line")
        values[key.strip()] = value.strip()
    return values


def parse_options(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--config", help="read options from this INI file (the command line wins)")
    parser.add_argument("--like", metavar="RESULTS",
                        help="run as splitstep ran: every option from its results file; "
                             "--model and --precision choose among its cases")
    for option in OPTIONS:
        # Raw text here, parsed below like a config value, so both are checked alike.
        parser.add_argument(*(f"--{n}" for n in (option.name,) + option.aliases),
                            dest=option.name, metavar="VALUE", default=None,
                            help=option.help if option.default is None else
                            f"{option.help} [{option.default}]")
    parser.add_argument("--ddp", action="store_true",
                        help="DistributedDataParallel, one rank per GPU (under mpirun or torchrun)")
    parser.add_argument("--no-sync", action="store_true",
                        help="with --ddp: forward and backward under model.no_sync()")
    parser.add_argument("--optimizer-only", action="store_true",
                        help="time optimizer.step() alone on random gradients")
    parser.add_argument("--json", help="rank 0 writes every rank's phase times here")
    parser.add_argument("--profile", metavar="DIR",
                        help=f"profile {PROFILED_STEPS} more steps; chrome trace per rank in DIR")
    args = parser.parse_args(argv)
    if args.no_sync and not args.ddp:
        raise UsageError("--no-sync: needs --ddp")
    flags = {flag: getattr(args, flag)
             for flag in ("ddp", "no_sync", "optimizer_only", "json", "profile")}
    if args.like:
        given = [f"--{o.name}" for o in OPTIONS
                 if getattr(args, o.name) is not None and o.name not in LIKE_CHOICES]
        if args.config:
            given.insert(0, "--config")
        if given:
            raise UsageError(f"--like: the run's options come from the results file; "
                             f"{', '.join(given)} not taken")
        chosen = {name: getattr(args, name) for name in LIKE_CHOICES}
        return dict(like_options(args.like, chosen, args.ddp, args.no_sync), **flags)

    config = read_ini(args.config) if args.config else {}
    options = {}
    for option in OPTIONS:
        text = getattr(args, option.name)
        source = f"--{option.name}"
        if text is None:
            for key in (option.name,) + option.aliases:
                if key in config:
                    text, source = config[key], f"{args.config}: {key}"
        if text is None:
            options[option.name] = option.default
            continue
        try:
            options[option.name] = option.parse(text)
        except ValueError as e:
            raise UsageError(f"{source}: {e}")
    if options["momentum"] and options["optimizer"] != "sgd":
        raise UsageError("--momentum: applies to sgd only")
    spec = SPECS[options["model"]]
    options.update(spec=spec, like=None, parameters_expected=None, batch_expected=None,
                   reference="twin", reproduces=None,
                   shape=shape_of(options))
    options.update(flags)
    return options


def shape_of(options):
    """A twin's shape, keyed by the last word of splitstep's option names."""
    return {name.rsplit("-", 1)[-1]: options[name]
            for name in SPECS[options["model"]].shape_options}


# --- the library's model, as splitstep ran its reproduction (--like) ----------------------------


def zoo_module(model):
    """The zoo module of splitstep's model `model` (zoo/models/<name>.py), None without one."""
    path = ZOO_MODELS / f"{model.replace('-', '_')}.py"
    if not path.is_file():
        return None
    loader = importlib.util.spec_from_file_location(f"zoo_{path.stem}", path)
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    return module


def library_spec(module):
    """The library model's step: the zoo module's model, batch, forward and loss. Its shape
    options are the keys of its CPU shapes, splitstep's option names (zoo/models/README.md)."""
    names = [tuple(shape) for shape in module.CPU_SHAPES]
    if len({frozenset(n) for n in names}) != 1:
        raise UsageError(f"zoo model {module.NAME}: its CPU_SHAPES name different options")
    return ModelSpec(names[0], module.library_model, module.example_batch, module.loss,
                     module.forward)


# Options of a run that the results file's plan holds as splitstep's canonical text, parsed as
# the twin parses its own.
PLAN_OPTIONS = ("lr", "momentum", "non-blocking", "host-work-ms", "bucket-mb", "first-bucket-mb",
                "device", "warmup")
# What --like leaves to the command line: which of the file's cases, and the anchor's outputs.
LIKE_CHOICES = ("model", "precision")


def read_results(path):
    try:
        with open(path) as f:
            document = json.load(f)
    except (OSError, ValueError) as e:
        raise UsageError(f"--like: cannot read '{path}': {e}")
    if not isinstance(document, dict) or document.get("schema") not in RESULTS_SCHEMAS:
        raise UsageError(f"--like: '{path}' is not a splitstep results file")
    return document


def fields_of(case):
    """A case's typed fields (schema 2), or its text params (schema 1)."""
    return case.get("fields", case.get("params"))


def chosen_case(path, document, model, precision, ddp, no_sync):
    """The step series of splitstep's case this run stands for: of `model` and `precision`
    where given (else the file's only ones), in the mode that pairs with this run (parity.py):
    rank 0 alone (single, or none on one rank), overlap under --ddp, none under --no-sync."""
    steps = [c for c in document.get("cases", [])
             if c.get("suite") == "step" and c.get("series") == "step" and not c.get("skipped")
             and not c.get("detail")]
    steps = [c for c in steps if model in (None, fields_of(c)["model"])
             and precision in (None, fields_of(c)["precision"])]
    kinds = sorted({(fields_of(c)["model"], fields_of(c)["precision"]) for c in steps})
    if not kinds:
        asked = " ".join(filter(None, (model, precision)))
        raise UsageError(f"--like: '{path}' holds no step case" + (f" of {asked}" if asked else ""))
    if len(kinds) > 1:
        raise UsageError(f"--like: '{path}' holds step cases of "
                         f"{', '.join(' '.join(k) for k in kinds)}: choose one with --model and "
                         f"--precision")

    def pairs(fields):
        mode, world = fields["mode"], int(fields["world_size"])
        if no_sync:
            return mode == "none" and world > 1
        if ddp:
            return mode == "overlap"
        return mode == "single" or (mode == "none" and world == 1)

    found = [c for c in steps if pairs(fields_of(c))]
    if not found:
        wanted = ("none on several ranks" if no_sync else "overlap" if ddp else
                  "single, or none on one rank")
        raise UsageError(f"--like: '{path}' has no {' '.join(kinds[0])} case in mode {wanted}")
    return found[0]


def like_options(path, chosen, ddp, no_sync):
    """Every option of the run from splitstep's results file: the plan's canonical text for the
    recipe and the shape, the case's fields for what the case is. Nothing is a default here."""
    document = read_results(path)
    case = chosen_case(path, document, chosen.get("model"), chosen.get("precision"), ddp,
                       no_sync)
    plan, fields = document.get("plan", {}), fields_of(case)
    by_name = {o.name: o for o in OPTIONS}
    options = {}
    try:
        for name in PLAN_OPTIONS:
            options[name] = by_name[name].parse(str(plan[name]))
        for name, field in (("precision", "precision"), ("optimizer", "optimizer"),
                            ("optimizer-impl", "optimizer_impl"), ("input", "input")):
            options[name] = by_name[name].parse(str(fields[field]))
        rank0 = next(r for r in case["ranks"] if r["rank"] == 0)
        options["steps"] = len(rank0["values"])
        parameters, batch = int(fields["parameters"]), int(fields["batch"])
    except KeyError as e:
        raise UsageError(f"--like: '{path}': its step case or plan lacks {e}")
    except (ValueError, StopIteration) as e:
        raise UsageError(f"--like: '{path}': {e or 'no values of rank 0'}")
    if options["steps"] < 1:
        raise UsageError(f"--like: '{path}': rank 0 has no samples of {case['case']}")
    # splitstep's Measurer runs a timed cold start before its warm-up: one more untimed step.
    options["warmup"] += 1
    model = fields["model"]
    module = zoo_module(model)
    if module is not None:
        spec = library_spec(module)
    elif model in SPECS:
        spec = SPECS[model]
    else:
        raise UsageError(f"--like: splitstep's model '{model}' has no zoo module "
                         f"({ZOO_MODELS / (model.replace('-', '_') + '.py')}) and no twin")
    try:
        values = {name: int(plan[name]) for name in spec.shape_options}
    except KeyError as e:
        raise UsageError(f"--like: '{path}': its plan has no shape option {e} of {model}")
    except ValueError as e:
        raise UsageError(f"--like: '{path}': a shape option of {model} is no integer ({e})")
    options.update(model=model, spec=spec, like=path, parameters_expected=parameters,
                   batch_expected=batch,
                   reference="library" if module is not None else "twin",
                   reproduces=module.REPRODUCES if module is not None else None,
                   shape=values if module is not None else shape_of(dict(values, model=model)))
    if float(plan.get("warmup-time", 0)) > 0:
        print(f"step_twin: note: splitstep warmed up for --warmup-time {plan['warmup-time']} s "
              f"more than its --warmup steps; the run here does not", file=sys.stderr)
    return options


# --- the step -----------------------------------------------------------------------------------


class EventTimer:
    """Intervals between CUDA events on the current stream; read after a synchronize."""

    def __init__(self, names):
        self.events = {n: (torch.cuda.Event(enable_timing=True),
                           torch.cuda.Event(enable_timing=True)) for n in names}

    def start(self, name):
        self.events[name][0].record()

    def stop(self, name):
        self.events[name][1].record()

    def seconds(self, name):
        begin, end = self.events[name]
        return begin.elapsed_time(end) / 1000


class HostTimer:
    """On the CPU operations are synchronous: the clock read after a phase's work ends it."""

    def __init__(self, names):
        self.marks = {n: [0.0, 0.0] for n in names}

    def start(self, name):
        self.marks[name][0] = time.perf_counter()

    def stop(self, name):
        self.marks[name][1] = time.perf_counter()

    def seconds(self, name):
        begin, end = self.marks[name]
        return end - begin


class BatchSource:
    """The step's input: on the device once (`device`), or copied from host memory each step
    after `host_work` seconds of busy host work, as splitstep's data phase does."""

    def __init__(self, host_batch, kind, device, non_blocking, host_work):
        self.device = device
        self.non_blocking = non_blocking
        self.host_work = host_work
        self.on_device = None
        if kind == "device":
            self.on_device = tuple(t.to(device) for t in host_batch)
        elif kind == "pinned" and device.type == "cuda":
            host_batch = tuple(t.pin_memory() for t in host_batch)
        self.host = host_batch

    def next(self):
        if self.host_work > 0:
            until = time.perf_counter() + self.host_work
            while time.perf_counter() < until:
                pass
        if self.on_device is not None:
            return self.on_device
        # copy=True: a real copy on the CPU too, as splitstep's copy_ into its device buffers.
        return tuple(t.to(self.device, non_blocking=self.non_blocking, copy=True)
                     for t in self.host)


def make_optimizer(parameters, options):
    impl = {None: {}, "loop": {"foreach": False}, "foreach": {"foreach": True},
            "fused": {"fused": True}}[options["optimizer-impl"]]
    if options["optimizer"] == "adamw":
        return torch.optim.AdamW(parameters, lr=options["lr"], **impl)
    return torch.optim.SGD(parameters, lr=options["lr"], momentum=options["momentum"], **impl)


def resolved_impl(options, device):
    """The implementation torch.optim runs: with nothing asked, foreach on CUDA, else the loop
    (torch.optim.optimizer._default_to_fused_or_foreach)."""
    if options["optimizer-impl"] is not None:
        return options["optimizer-impl"]
    return "foreach" if device.type == "cuda" else "loop"


class Step:
    """One training step, each phase between two timer marks, as splitstep's TrainingStep."""

    def __init__(self, model, spec, source, options, device):
        self.model = model
        self.spec = spec
        self.source = source
        self.optimizer = make_optimizer(model.parameters(), options)
        self.no_sync = options["no_sync"]
        dtype = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}[options["precision"]]
        # One autocast region per phase, as splitstep's AutocastScope: leaving it drops the
        # cached low-precision weight copies, so the next step casts the updated weights.
        self.autocast = (lambda: torch.autocast(device.type, dtype=dtype)) if dtype else \
            contextlib.nullcontext
        self.scaler = None
        if options["precision"] == "fp16":
            self.scaler = torch.amp.GradScaler(device.type, init_scale=2.0 ** 16, growth_factor=2.0,
                                               backoff_factor=0.5, growth_interval=2000)
        self.timer = (EventTimer if device.type == "cuda" else HostTimer)(("step",) + PHASES)

    def run(self):
        t = self.timer
        t.start("step")
        # DDP decides at forward whether the coming backward syncs: no_sync() spans both.
        with self.model.no_sync() if self.no_sync else contextlib.nullcontext():
            t.start("data")
            x, y = self.source.next()
            t.stop("data")
            t.start("forward")
            with self.autocast():
                output = self.spec.forward(self.model, x)
            t.stop("forward")
            t.start("loss")
            with self.autocast():
                loss = self.spec.loss(output, y)
            if self.scaler is not None:
                loss = self.scaler.scale(loss)
            t.stop("loss")
            # Under DDP this holds the overlapped bucket allreduces and DDP's wait for them,
            # which it queues at the end of backward.
            t.start("backward")
            loss.backward()
            t.stop("backward")
        del output, loss
        t.start("optimizer")
        if self.scaler is not None:
            self.scaler.step(self.optimizer)  # unscales, and skips a step with inf/NaN
            self.scaler.update()
        else:
            self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        t.stop("optimizer")
        t.stop("step")

    def seconds(self):
        return {name: self.timer.seconds(name) for name in ("step",) + PHASES}


class OptimizerStep:
    """optimizer.step() alone, on gradients drawn once: the optimizer implementation's cost."""

    def __init__(self, model, options, device):
        parameters = list(model.parameters())
        for p in parameters:
            p.grad = torch.randn_like(p)
        self.optimizer = make_optimizer(parameters, options)
        self.timer = (EventTimer if device.type == "cuda" else HostTimer)(("optimizer",))

    def run(self):
        self.timer.start("optimizer")
        self.optimizer.step()
        self.timer.stop("optimizer")

    def seconds(self):
        return {"optimizer": self.timer.seconds("optimizer")}


# --- the run ------------------------------------------------------------------------------------


class Launch(NamedTuple):
    rank: int
    world_size: int
    local_rank: int


def launch_from_environment():
    """Open MPI's variables (mpirun), else torchrun's; a single process without either."""
    def read(ompi, torchrun, default):
        return int(os.environ.get(ompi, os.environ.get(torchrun, default)))
    return Launch(read("OMPI_COMM_WORLD_RANK", "RANK", 0),
                  read("OMPI_COMM_WORLD_SIZE", "WORLD_SIZE", 1),
                  read("OMPI_COMM_WORLD_LOCAL_RANK", "LOCAL_RANK", 0))


def choose_device(options, launch):
    wanted = options["device"]
    if wanted == "auto":
        wanted = "cuda" if torch.cuda.is_available() else "cpu"
    if wanted == "cpu":
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise UsageError("--device: cuda asked for, but no GPU is visible")
    if launch.local_rank >= torch.cuda.device_count():
        raise UsageError(f"rank {launch.rank}: local rank {launch.local_rank}, but "
                         f"{torch.cuda.device_count()} GPU(s) visible")
    return torch.device("cuda", launch.local_rank)


def wrap_ddp(model, options, device):
    from torch.nn.parallel import DistributedDataParallel
    kwargs = {}
    # Left unset, DDP's buckets are 25 MiB after a first one of 1 MiB, as splitstep's defaults.
    # Passing bucket_cap_mb would make the first bucket as large as the others.
    if (options["bucket-mb"], options["first-bucket-mb"]) != (25.0, 1.0):
        kwargs["bucket_cap_mb_list"] = [options["first-bucket-mb"], options["bucket-mb"]]
    # broadcast_buffers=False: splitstep does not broadcast BatchNorm's running statistics.
    return DistributedDataParallel(
        model, device_ids=[device.index] if device.type == "cuda" else None,
        gradient_as_bucket_view=True, broadcast_buffers=False, **kwargs)


def trace_name(options, rank):
    """A library model's trace names its precision: both precisions of a shape share a folder."""
    if options["reference"] == "library":
        return f"library-{options['model']}-{options['precision']}-rank{rank}.json"
    return f"twin-{options['model']}-rank{rank}.json"


def time_steps(work, options, device, ddp):
    """`warmup` untimed runs, then `steps` timed ones, each alone: the device finishes one before
    the next starts, and under DDP the ranks start it together (splitstep's barrier)."""
    def once():
        work.run()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        if ddp:
            dist.barrier()

    for _ in range(options["warmup"]):
        once()
    times = {}
    for _ in range(options["steps"]):
        once()
        for name, seconds in work.seconds().items():
            times.setdefault(name, []).append(seconds)
    if options["profile"]:
        activities = [torch.profiler.ProfilerActivity.CPU]
        if device.type == "cuda":
            activities.append(torch.profiler.ProfilerActivity.CUDA)
        with torch.profiler.profile(activities=activities) as profiler:
            for _ in range(PROFILED_STEPS):
                once()
        os.makedirs(options["profile"], exist_ok=True)
        rank = dist.get_rank() if ddp else 0
        profiler.export_chrome_trace(os.path.join(options["profile"], trace_name(options, rank)))
    return times


def package_versions():
    """The installed versions of the packages a library model may come from."""
    versions = {}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    return versions


def write_json(path, document):
    # A temporary name and a rename, so that no reader sees half a file.
    temporary = f"{path}.tmp{os.getpid()}"
    with open(temporary, "w") as f:
        json.dump(document, f, indent=1)
        f.write("\n")
    os.replace(temporary, path)


def print_table(document):
    impl = document["optimizer_impl"]
    if document["reproduces"]:
        print(f"step_twin: the library's model: {document['reproduces']}")
    print(f"step_twin: {document['model']} {document['precision']}, {document['optimizer']} "
          f"({impl}), input {document['input']}, {document['world_size']} rank(s)"
          f"{', DDP' if document['ddp'] else ''}{' no_sync' if document['no_sync'] else ''}; "
          f"{document['parameters']:,} parameters; {document['device']}")
    print(f"{'phase':<10} {'median ms':>10} {'min rank':>10} {'max rank':>10}")
    for phase in document["ranks"][0]["phases"]:
        medians = [statistics.median(r["phases"][phase]) * 1e3 for r in document["ranks"]]
        print(f"{phase:<10} {statistics.median(medians):>10.3f} {min(medians):>10.3f} "
              f"{max(medians):>10.3f}")


def run(options):
    launch = launch_from_environment()
    if launch.world_size > 1 and not options["ddp"]:
        raise UsageError(f"{launch.world_size} ranks launched without --ddp")
    device = choose_device(options, launch)
    if device.type == "cuda":
        torch.cuda.set_device(device)
    # LibTorch's defaults, which splitstep keeps: no TF32 for products, TF32 for cuDNN.
    torch.backends.cuda.matmul.allow_tf32 = False
    ddp = options["ddp"]
    if ddp:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29531")
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo",
                                rank=launch.rank, world_size=launch.world_size,
                                device_id=device if device.type == "cuda" else None)

    spec, shape = options["spec"], options["shape"]
    # Modules draw their initial weights from the global CPU generator, as in splitstep.
    torch.manual_seed(MODEL_SEED)
    model = spec.build(shape)
    # A tied parameter counts once, as model.parameters() (and the optimizer) sees it.
    parameters = sum(p.numel() for p in model.parameters())
    expected = options["parameters_expected"]
    if expected is not None and parameters != expected:
        raise UsageError(f"--like: {options['model']} at {shape}: the {options['reference']}'s "
                         f"model has {parameters:,} parameters, splitstep's {expected:,}: not the "
                         f"same model")
    model = model.to(device)
    if options["optimizer_only"]:
        work = OptimizerStep(model, options, device)
    else:
        generator = torch.Generator().manual_seed(batch_seed(launch.rank if ddp else 0))
        host_batch = spec.host_batch(shape, generator)
        if options["batch_expected"] not in (None, len(host_batch[0])):
            raise UsageError(f"--like: {options['model']} at {shape}: a batch of "
                             f"{len(host_batch[0])}, splitstep's {options['batch_expected']}")
        source = BatchSource(host_batch, options["input"], device, options["non-blocking"],
                             options["host-work-ms"] / 1000)
        work = Step(wrap_ddp(model, options, device) if ddp else model, spec, source, options,
                    device)
    phases = time_steps(work, options, device, ddp)

    ranks = [phases]
    if ddp:
        gathered = [None] * launch.world_size if launch.rank == 0 else None
        dist.gather_object(phases, gathered, dst=0)
        ranks = gathered
    if launch.rank == 0:
        document = {
            "tool": "step_twin", "torch": torch.__version__,
            "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
            "model": options["model"], "precision": options["precision"],
            "optimizer": options["optimizer"], "optimizer_impl": resolved_impl(options, device),
            "optimizer_impl_default": options["optimizer-impl"] is None,
            "input": options["input"], "world_size": launch.world_size if ddp else 1,
            "ddp": ddp, "no_sync": options["no_sync"], "optimizer_only": options["optimizer_only"],
            "parameters": parameters, "shape": shape,
            "reference": options["reference"], "reproduces": options["reproduces"],
            "like": options["like"], "packages": package_versions(),
            "warmup": options["warmup"], "steps": options["steps"],
            "trace": (os.path.join(options["profile"], trace_name(options, 0))
                      if options["profile"] else None),
            "profiled_steps": PROFILED_STEPS if options["profile"] else 0,
            "ranks": [{"rank": r, "phases": p} for r, p in enumerate(ranks)],
        }
        print_table(document)
        if options["json"]:
            write_json(options["json"], document)


def close_process_group():
    """Tears the group down once every rank is done with it and the DDP model that held it is
    gone: torn down earlier, gloo's worker threads can abort the process at exit."""
    gc.collect()
    dist.barrier()
    dist.destroy_process_group()


def main(argv=None):
    try:
        run(parse_options(argv))
        if dist.is_initialized():
            close_process_group()
    except UsageError as e:
        print(f"step_twin: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
