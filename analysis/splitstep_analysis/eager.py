"""The same training step in PyTorch eager, on this node, timed phase by phase as splitstep times
its own: the figure of Python's launches beside splitstep's C++ step and its graphed step.

  splitstep-analysis eager --like results.json [--model M] [--precision P] [--json eager.json]
  splitstep-analysis eager --like results.json --model-factory mymodels:make \\
      --batch-factory mymodels:batch [--loss cross-entropy|mse|MODULE:FN]
  splitstep-analysis eager --model mlp --precision bf16 --json twin.json
  mpirun -np 2 splitstep-analysis eager --ddp --like results.json     # under DDP

--like RESULTS takes every setting from a splitstep results file: the shape, precision,
optimizer and its implementation, input, learning rate, warm-up and sample count of one of its
step cases (--model and --precision choose among them). What runs is
  - for a zoo model (vit-b16, resnet50, gpt2, llama), the library's own model it reproduces
    (timm, torchvision, transformers; splitstep_analysis/zoo/<name>.py), built from its config,
    refused where its parameter count or batch is not splitstep's;
  - for an exported model (--model-file), the factories it was exported from, as `export` took
    them: --model-factory, --batch-factory, and the loss the archive recorded (or --loss);
  - for splitstep's mlp and recsys, which reproduce no library, their twins in PyTorch.
Without --like, a twin runs with the options below (their names and defaults are splitstep's;
--config reads the same INI presets, the command line wins).

The step is splitstep's: data, forward, loss, backward (under DDP with its bucket allreduces),
optimizer, each between two CUDA events on the working stream (the host clock on the CPU); the
warm-up steps untimed, then one sample per timed step; a synchronize after each step, and under
DDP a barrier, so that steps do not overlap. Rank 0 prints the median of each phase and writes
every rank's samples to --json; `splitstep-analysis report RESULTS --eager JSON` shows them
beside splitstep's step and its graphed step (docs/step.md, "Three figures of one step").
"""
import json
import os
import sys
from typing import Callable, NamedTuple

from . import eager_models
from .eager_models import TWINS, factory_spec, library_spec, twin_shape, twin_spec, zoo_module
from . import schema
from .plans import option_text
from .schema import BadInput



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
    Option("model", choice(*TWINS), "mlp",
           "the model to train; with --like, which of the file's models", ("step-models",)),
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
    Option("recsys-tables", positive_int, 8, "recsys: embedding tables"),
    Option("recsys-rows", positive_int, 1 << 20, "recsys: rows of each table"),
    Option("recsys-dim", positive_int, 128, "recsys: width of a row"),
    Option("recsys-bag", positive_int, 32, "recsys: lookups per sample and table, summed"),
    Option("recsys-hidden", positive_int, 1024, "recsys: width of the MLP's hidden layer"),
    Option("recsys-batch", positive_int, 4096, "recsys: batch per rank"),
)
# Options of a run that the results file's plan holds as splitstep's canonical text, parsed as
# the command parses its own.
PLAN_OPTIONS = ("lr", "momentum", "non-blocking", "host-work-ms", "bucket-mb", "first-bucket-mb",
                "device", "warmup")
# What --like leaves to the command line: which of the file's cases.
LIKE_CHOICES = ("model", "precision")
FLAGS = ("ddp", "no_sync", "optimizer_only", "json", "profile")


def add_arguments(parser):
    parser.add_argument("--config", metavar="INI",
                        help="read options from this INI file (the command line wins)")
    parser.add_argument("--like", metavar="RESULTS",
                        help="run as splitstep ran: every option from its results file; "
                             "--model and --precision choose among its cases")
    parser.add_argument("--model-factory", metavar="MODULE:FN",
                        help="with --like of an exported model: the function returning the "
                             "nn.Module it was exported from")
    parser.add_argument("--batch-factory", metavar="MODULE:FN",
                        help="with --like of an exported model: the function returning its "
                             "example batch (inputs..., target)")
    parser.add_argument("--loss", metavar="NAME|MODULE:FN",
                        help="with --like of an exported model: cross-entropy, mse or a function "
                             "of (output, target) (default: the loss its archive recorded)")
    for option in OPTIONS:
        # Raw text here, parsed below like a config value, so both are checked alike.
        parser.add_argument(*(f"--{n}" for n in (option.name,) + option.aliases),
                            dest=option.name, metavar="VALUE", default=None,
                            help=option.help if option.default is None else
                            f"{option.help} [{option.default}]")
    parser.add_argument("--ddp", action="store_true",
                        help="DistributedDataParallel, one rank per GPU (under mpirun or "
                             "torchrun)")
    parser.add_argument("--no-sync", action="store_true",
                        help="with --ddp: forward and backward under model.no_sync()")
    parser.add_argument("--optimizer-only", action="store_true",
                        help="time optimizer.step() alone on random gradients")
    parser.add_argument("--json", metavar="FILE",
                        help="rank 0 writes every rank's phase times here")
    parser.add_argument("--profile", metavar="DIR",
                        help="profile 3 more steps; a Chrome trace per rank in DIR")


def read_ini(path):
    """splitstep's INI presets: `key = value` lines, `#` comments."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise BadInput(f"--config: cannot read '{path}': {e.strerror}") from None
    values = {}
    for line_number, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise BadInput(f"{path}:{line_number}: not a 'key = value' line")
        values[key.strip()] = value.strip()
    return values


def options_from(args):
    """Every setting of the run, checked: from the results file (--like) or from the options,
    the INI file under them and the defaults under that."""
    if args.no_sync and not args.ddp:
        raise BadInput("--no-sync: needs --ddp")
    if args.json and not os.path.isdir(os.path.dirname(os.path.abspath(args.json))):
        raise BadInput(f"--json: no folder {os.path.dirname(os.path.abspath(args.json))} to "
                       f"write {args.json} in")
    flags = {flag: getattr(args, flag) for flag in FLAGS}
    factories = {"--model-factory": args.model_factory, "--batch-factory": args.batch_factory,
                 "--loss": args.loss}
    if args.like:
        given = [f"--{o.name}" for o in OPTIONS
                 if getattr(args, o.name) is not None and o.name not in LIKE_CHOICES]
        if args.config:
            given.insert(0, "--config")
        if given:
            raise BadInput(f"--like: the run's options come from the results file; "
                           f"{', '.join(given)} not taken")
        chosen = {name: getattr(args, name) for name in LIKE_CHOICES}
        return dict(like_options(args.like, chosen, args.ddp, args.no_sync, factories), **flags)
    named = [name for name, value in factories.items() if value is not None]
    if named:
        raise BadInput(f"{named[0]}: needs --like, the results file of the exported model")

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
            raise BadInput(f"{source}: {e}") from None
    if options["momentum"] and options["optimizer"] != "sgd":
        raise BadInput("--momentum: applies to sgd only")
    model = options["model"]
    options.update(spec=twin_spec(model), like=None, parameters_expected=None,
                   batch_expected=None, reference="twin", reproduces=None,
                   shape=twin_shape(model, options))
    options.update(flags)
    return options


# --- the run splitstep made (--like) ------------------------------------------------------------


def read_results(path):
    """The results file --like names, read and checked as every subcommand reads one (v1 in the
    v2 shape: each case's typed fields)."""
    try:
        return schema.read_results(path)
    except schema.ResultsError as error:
        raise BadInput(f"--like: {error}") from None


def fields_of(case):
    """A case's typed fields (read_results gives every case its fields, a v1 file's decoded)."""
    return case["fields"]


def chosen_case(path, document, model, precision, ddp, no_sync):
    """The step series of splitstep's case this run stands for: of `model` and `precision`
    where given (else the file's only ones), in the mode that pairs with this run (parity.py):
    rank 0 alone (single, or none on one rank), overlap under --ddp, none under --no-sync. A
    graphed case is the same step without launches: its eager case is the one to pair."""
    steps = [c for c in document.get("cases", [])
             if c.get("suite") == "step" and c.get("series") == "step" and not c.get("skipped")
             and not c.get("detail") and fields_of(c).get("launch") != "graph"]
    steps = [c for c in steps if model in (None, fields_of(c)["model"])
             and precision in (None, fields_of(c)["precision"])]
    kinds = sorted({(fields_of(c)["model"], fields_of(c)["precision"]) for c in steps})
    if not kinds:
        asked = " ".join(filter(None, (model, precision)))
        raise BadInput(f"--like: '{path}' holds no step case" + (f" of {asked}" if asked else ""))
    if len(kinds) > 1:
        raise BadInput(f"--like: '{path}' holds step cases of "
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
        raise BadInput(f"--like: '{path}' has no {' '.join(kinds[0])} case in mode {wanted}")
    return found[0]


def recorded_loss(results_path, plan):
    """The loss the archive of the run's --model-file recorded, or None where it cannot be
    read. A relative --model-file is looked for from here, then beside the results file."""
    import zipfile

    from .export import EXTRA_NAME

    path = plan.get("model-file")
    if not path:
        return None
    for candidate in (path, os.path.join(os.path.dirname(results_path), path)):
        try:
            with zipfile.ZipFile(candidate) as archive:
                name = next((n for n in archive.namelist()
                             if n.endswith(f"/extra/{EXTRA_NAME}")), None)
                return json.loads(archive.read(name)).get("loss") if name else None
        except (OSError, ValueError, zipfile.BadZipFile):
            continue
    return None


def exported_spec(path, plan, factories):
    """The user's factories of the exported model the run trained, and their names."""
    model, batch, loss = (factories[k] for k in ("--model-factory", "--batch-factory", "--loss"))
    if model is None or batch is None:
        raise BadInput(f"--like: '{path}' trained an exported model (--model-file "
                       f"{plan.get('model-file', '?')}): name the factories it was exported "
                       f"from, --model-factory and --batch-factory")
    loss = loss or recorded_loss(path, plan)
    if loss is None:
        raise BadInput(f"--like: the archive {plan.get('model-file', '?')} cannot be read for "
                       f"its loss: name it with --loss")
    return factory_spec(model, batch, loss), {"model": model, "batch": batch, "loss": loss}


def like_options(path, chosen, ddp, no_sync, factories=None):
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
            options[name] = by_name[name].parse(option_text(plan[name]))
        for name, field in (("precision", "precision"), ("optimizer", "optimizer"),
                            ("optimizer-impl", "optimizer_impl"), ("input", "input")):
            options[name] = by_name[name].parse(str(fields[field]))
        rank0 = next(r for r in case["ranks"] if r["rank"] == 0)
        options["steps"] = len(rank0["values"])
        parameters, batch = int(fields["parameters"]), int(fields["batch"])
    except KeyError as e:
        raise BadInput(f"--like: '{path}': its step case or plan lacks {e}") from None
    except (ValueError, StopIteration) as e:
        raise BadInput(f"--like: '{path}': {e or 'no values of rank 0'}") from None
    if options["steps"] < 1:
        raise BadInput(f"--like: '{path}': rank 0 has no samples of {case['case']}")
    # splitstep's Measurer runs a timed cold start before its warm-up: one more untimed step.
    options["warmup"] += 1
    model = fields["model"]
    factories = factories or dict.fromkeys(("--model-factory", "--batch-factory", "--loss"))
    named = [k for k, v in factories.items() if v is not None]
    if model != "exported" and named:
        raise BadInput(f"{named[0]}: '{path}' trained splitstep's {model}, not an exported "
                       f"model")
    if model == "exported":
        spec, named_factories = exported_spec(path, plan, factories)
        options.update(model=model, spec=spec, shape={}, reference="exported", reproduces=None,
                       factories=named_factories)
    elif (module := zoo_module(model)) is not None:
        spec = library_spec(module)
        options.update(model=model, spec=spec, shape=shape_from_plan(path, plan, spec, model),
                       reference="library", reproduces=module.REPRODUCES)
    elif model in TWINS:
        spec = twin_spec(model)
        values = shape_from_plan(path, plan, spec, model)
        options.update(model=model, spec=spec, shape=twin_shape(model, values),
                       reference="twin", reproduces=None)
    else:
        raise BadInput(f"--like: splitstep's model '{model}' has no zoo module "
                       f"({eager_models.ZOO_MODELS / (model.replace('-', '_') + '.py')}) and "
                       f"no twin")
    options.update(like=path, parameters_expected=parameters, batch_expected=batch)
    if float(plan.get("warmup-time", 0)) > 0:
        print(f"eager: note: splitstep warmed up for --warmup-time {plan['warmup-time']} s "
              f"more than its --warmup steps; the run here does not", file=sys.stderr)
    return options


def shape_from_plan(path, plan, spec, model):
    """The model's shape options from the run's plan."""
    try:
        return {name: int(plan[name]) for name in spec.shape_options}
    except KeyError as e:
        raise BadInput(f"--like: '{path}': its plan has no shape option {e} of {model}") from None
    except ValueError as e:
        raise BadInput(f"--like: '{path}': a shape option of {model} is no integer ({e})") \
            from None


def run(args):
    options = options_from(args)
    # torch only now: the help and a refused option answer without importing it.
    from . import eager_step

    eager_step.run_step(options)
    if eager_step.dist.is_initialized():
        eager_step.close_process_group()
    return 0
