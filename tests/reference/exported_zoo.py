"""Factories for `splitstep-analysis export` that build the library model a zoo model reproduces
exactly as `splitstep-analysis eager --like` builds it for its eager step: the zoo module's
`library_model(shape)` at the shape, weights seeded as the twin seeds them, its forward (the
logits) and its loss, and one batch of the shape and dtypes splitstep ran.

Which model and shape: the splitstep results file that EXPORTED_LIKE names (and, where it holds
several step models, the one EXPORTED_MODEL names), read by the eager command's own --like:

  EXPORTED_LIKE=builtin.json splitstep-analysis export exported_zoo:model \\
      --batch exported_zoo:batch --loss exported_zoo:loss -o resnet50.pt2

(run from tests/reference, or with it on PYTHONPATH). A library model whose parameter count or
batch is not the results file's is refused, as --like refuses it, so that the archive is the
model the built-in one was measured as. Or, before any run, the preset EXPORTED_CONFIG names
(configs/gpt2.ini): its model and shape options; the parameter counts are then held to each
other where the runs are paired (parity.py).
"""
import functools
import os

import torch

import eager_support  # noqa: F401 (the package on sys.path)
from splitstep_analysis import eager, eager_models
from splitstep_analysis.schema import BadInput


class Logits(torch.nn.Module):
    """The zoo module's forward of the library model, as the twin's forward phase calls it."""

    def __init__(self, library_model, forward):
        super().__init__()
        self.library_model = library_model
        self.forward_of = forward

    def forward(self, input):
        return self.forward_of(self.library_model, input)


@functools.cache
def like():
    """The eager command's options for the run EXPORTED_LIKE names. The model and shape are the same in
    every precision and mode of the file: its first step case's are chosen."""
    path = os.environ.get("EXPORTED_LIKE")
    if not path and os.environ.get("EXPORTED_CONFIG"):
        return preset(os.environ["EXPORTED_CONFIG"])
    if not path:
        raise BadInput("EXPORTED_LIKE names no splitstep results file (nor EXPORTED_CONFIG a "
                       "preset)")
    wanted = os.environ.get("EXPORTED_MODEL") or None
    document = eager.read_results(path)
    first = next((eager.fields_of(c) for c in document.get("cases", [])
                  if c.get("suite") == "step" and not c.get("skipped")
                  and wanted in (None, eager.fields_of(c)["model"])), None)
    if first is None:
        raise BadInput(f"EXPORTED_LIKE: '{path}' holds no step case"
                                   + (f" of {wanted}" if wanted else ""))
    # The mode --like pairs with that case: alone, under DDP, or under no_sync().
    several = int(first["world_size"]) > 1
    options = eager.like_options(path, {"model": first["model"],
                                            "precision": first["precision"]},
                                     ddp=several, no_sync=several and first["mode"] == "none")
    if options["reference"] != "library":
        raise BadInput(f"EXPORTED_LIKE: {options['model']} has no zoo module")
    return options


def preset(path):
    """The model and shape of a preset INI file, as splitstep reads them."""
    values = eager.read_ini(path)
    model = values.get("step-models", "")
    module = eager_models.zoo_module(model) if model else None
    if module is None:
        raise BadInput(f"EXPORTED_CONFIG: {path}: step-models '{model}' is no zoo model")
    spec = eager_models.library_spec(module)
    try:
        shape = {name: int(values[name]) for name in spec.shape_options}
    except KeyError as e:
        raise BadInput(f"EXPORTED_CONFIG: {path}: no shape option {e} of {model}") from None
    except ValueError as e:
        raise BadInput(f"EXPORTED_CONFIG: {path}: a shape option of {model} is no integer "
                       f"({e})") from None
    return {"model": model, "spec": spec, "shape": shape, "reference": "library",
            "parameters_expected": None, "batch_expected": None}


def model():
    options = like()
    spec, shape = options["spec"], options["shape"]
    torch.manual_seed(eager_models.MODEL_SEED)
    built = spec.build(shape)
    parameters = sum(p.numel() for p in built.parameters())
    if options["parameters_expected"] not in (None, parameters):
        raise BadInput(
            f"{options['model']} at {shape}: the library's model has {parameters:,} parameters, "
            f"splitstep's {options['parameters_expected']:,}: not the same model")
    return Logits(built, spec.forward)


def batch():
    """Rank 0's batch of the twin: splitstep draws its own of these shapes and dtypes."""
    options = like()
    generator = torch.Generator().manual_seed(eager_models.batch_seed(0))
    input, target = options["spec"].host_batch(options["shape"], generator)
    if options["batch_expected"] not in (None, len(input)):
        raise BadInput(f"{options['model']}: a batch of {len(input)}, splitstep's "
                                   f"{options['batch_expected']}")
    return input, target


def loss(output, target):
    return like()["spec"].loss(output, target)
