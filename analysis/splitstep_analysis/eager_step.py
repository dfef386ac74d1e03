"""The step `splitstep-analysis eager` times: PyTorch eager, phase by phase as splitstep times its
own (the same phases, CUDA events on the working stream, warm-up and one sample per timed step),
alone, under DistributedDataParallel, or under DDP's no_sync().
"""
import contextlib
import gc
import importlib.metadata
import json
import os
import statistics
import time
from typing import NamedTuple

import torch
import torch.distributed as dist

from .eager_models import MODEL_SEED, batch_seed
from .eager_results import TOOL
from .export import EagerMaskDecisions
from .schema import BadInput

PHASES = ("data", "forward", "loss", "backward", "optimizer")
PROFILED_STEPS = 3
# The packages a library model may come from, whose versions the JSON records.
LIBRARIES = ("torch", "timm", "torchvision", "transformers")


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
            *inputs, target = self.source.next()
            t.stop("data")
            t.start("forward")
            with self.autocast():
                output = self.spec.forward(self.model, *inputs)
            t.stop("forward")
            t.start("loss")
            with self.autocast():
                loss = self.spec.loss(output, target)
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
        raise BadInput("--device: cuda asked for, but no GPU is visible")
    if launch.local_rank >= torch.cuda.device_count():
        raise BadInput(f"rank {launch.rank}: local rank {launch.local_rank}, but "
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
    """A library or exported model's trace names its precision: both precisions of a shape share
    a folder."""
    if options["reference"] == "twin":
        return f"twin-{options['model']}-rank{rank}.json"
    return f"{options['reference']}-{options['model']}-{options['precision']}-rank{rank}.json"


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
        # transformers' mask decisions in scopes of their own, only here: an exported graph
        # may lack what eager launches to make them (parity.py names those kernels).
        with torch.profiler.profile(activities=activities) as profiler, \
                EagerMaskDecisions().labelled():
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
    try:
        with open(temporary, "x") as f:
            json.dump(document, f, indent=1)
            f.write("\n")
        os.replace(temporary, path)
    except OSError as error:
        raise BadInput(f"--json: cannot write {path}: {error.strerror}") from None


def print_table(document):
    impl = document["optimizer_impl"]
    if document["reproduces"]:
        print(f"eager: the library's model: {document['reproduces']}")
    if document["factories"]:
        f = document["factories"]
        print(f"eager: the exported model's factories: {f['model']}, batch {f['batch']}, "
              f"loss {f['loss']}")
    print(f"eager: {document['model']} {document['precision']}, {document['optimizer']} "
          f"({impl}), input {document['input']}, {document['world_size']} rank(s)"
          f"{', DDP' if document['ddp'] else ''}{' no_sync' if document['no_sync'] else ''}; "
          f"{document['parameters']:,} parameters; {document['device']}")
    print(f"{'phase':<10} {'median ms':>10} {'min rank':>10} {'max rank':>10}")
    for phase in document["ranks"][0]["phases"]:
        medians = [statistics.median(r["phases"][phase]) * 1e3 for r in document["ranks"]]
        print(f"{phase:<10} {statistics.median(medians):>10.3f} {min(medians):>10.3f} "
              f"{max(medians):>10.3f}")


def described(options):
    """The model and its shape, for a refusal: `resnet50 at {...}`, or the exported model."""
    return options["model"] + (f" at {options['shape']}" if options["shape"] else "")


def run_step(options):
    launch = launch_from_environment()
    if launch.world_size > 1 and not options["ddp"]:
        raise BadInput(f"{launch.world_size} ranks launched without --ddp")
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
        built = {"library": "the library's model", "twin": "the twin",
                 "exported": "--model-factory's model"}[options["reference"]]
        raise BadInput(f"--like: {described(options)}: {built} has {parameters:,} parameters, "
                       f"splitstep's {expected:,}: not the same model")
    model = model.to(device)
    if options["optimizer_only"]:
        work = OptimizerStep(model, options, device)
    else:
        generator = torch.Generator().manual_seed(batch_seed(launch.rank if ddp else 0))
        host_batch = spec.host_batch(shape, generator)
        if options["batch_expected"] not in (None, len(host_batch[0])):
            raise BadInput(f"--like: {described(options)}: a batch of {len(host_batch[0])}, "
                           f"splitstep's {options['batch_expected']}")
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
            "tool": TOOL, "torch": torch.__version__,
            "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
            "model": options["model"], "precision": options["precision"],
            "optimizer": options["optimizer"], "optimizer_impl": resolved_impl(options, device),
            "optimizer_impl_default": options["optimizer-impl"] is None,
            "input": options["input"], "world_size": launch.world_size if ddp else 1,
            "ddp": ddp, "no_sync": options["no_sync"], "optimizer_only": options["optimizer_only"],
            "parameters": parameters, "shape": shape,
            "reference": options["reference"], "reproduces": options["reproduces"],
            "factories": options.get("factories"),
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
