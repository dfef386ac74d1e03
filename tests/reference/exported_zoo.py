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
model the built-in one was measured as.
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
    if not path:
        raise BadInput("EXPORTED_LIKE names no splitstep results file")
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


def model():
    options = like()
    spec, shape = options["spec"], options["shape"]
    torch.manual_seed(eager_models.MODEL_SEED)
    built = spec.build(shape)
    parameters = sum(p.numel() for p in built.parameters())
    if parameters != options["parameters_expected"]:
        raise BadInput(
            f"{options['model']} at {shape}: the library's model has {parameters:,} parameters, "
            f"splitstep's {options['parameters_expected']:,}: not the same model")
    return Logits(built, spec.forward)


def batch():
    """Rank 0's batch of the twin: splitstep draws its own of these shapes and dtypes."""
    options = like()
    generator = torch.Generator().manual_seed(eager_models.batch_seed(0))
    input, target = options["spec"].host_batch(options["shape"], generator)
    if len(input) != options["batch_expected"]:
        raise BadInput(f"{options['model']}: a batch of {len(input)}, splitstep's "
                                   f"{options['batch_expected']}")
    return input, target


def loss(output, target):
    return like()["spec"].loss(output, target)
