"""What `splitstep-analysis eager` trains: the library model a zoo model reproduces, the twin of
splitstep's mlp or recsys (the step models that reproduce no library), or the user's own
factories of an exported model.

Each is a ModelSpec: how to build it at a shape, its synthetic host batch (inputs..., target),
its forward and its loss, as splitstep's Workload declares them.
"""
import importlib.util
import pathlib
from typing import Callable, NamedTuple

from .schema import BadInput

MODEL_SEED = 2026  # splitstep's kModelSeed: every rank starts from the same parameters
# The zoo's library models, one module per zoo model of splitstep (zoo/README.md).
ZOO_MODELS = pathlib.Path(__file__).resolve().parent / "zoo"


def batch_seed(rank):
    """splitstep's batchSeed: each rank trains on its own batch."""
    return 1000 + rank


def call_model(model, *inputs):
    return model(*inputs)


class ModelSpec(NamedTuple):
    """What splitstep's Workload declares for a model: its shape options, how to build it,
    its synthetic host batch (inputs..., target), its forward and its loss."""

    shape_options: tuple  # option names; a twin's shape is keyed by their last word
    build: Callable       # shape -> nn.Module
    host_batch: Callable  # (shape, generator) -> (inputs..., target), drawn in splitstep's order
    loss: Callable        # (output, target) -> a scalar tensor
    forward: Callable = call_model  # (model, *inputs) -> the output the loss takes


# --- splitstep's mlp, which reproduces no library: its twin ------------------------------------
# Submodules are registered under splitstep's names and in its order: DDP fills its buckets in
# reverse registration order, and splitstep's buckets follow the same order.


def add_numbered(module, prefix, count, make):
    """Registers prefix0, prefix1, ... (splitstep's names, not nn.ModuleList's "blocks.0") and
    returns them in order."""
    for i in range(count):
        module.add_module(f"{prefix}{i}", make())
    return [getattr(module, f"{prefix}{i}") for i in range(count)]


def mlp_spec():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Mlp(nn.Module):
        """N x (Linear(d, d) + GELU), harness/models/MlpModule.cpp."""

        def __init__(self, layers, width):
            super().__init__()
            self.layers = add_numbered(self, "linear", layers, lambda: nn.Linear(width, width))

        def forward(self, x):
            for layer in self.layers:
                x = F.gelu(layer(x))
            return x

    return ModelSpec(
        ("mlp-layers", "mlp-width", "mlp-batch"),
        lambda s: Mlp(s["layers"], s["width"]),
        lambda s, g: (torch.randn(s["batch"], s["width"], generator=g),
                      torch.randn(s["batch"], s["width"], generator=g)),
        lambda output, target: F.mse_loss(output.float(), target))


def recsys_spec():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Recsys(nn.Module):
        """EmbeddingBag tables (sum) side by side, then Linear + ReLU + Linear, one logit per
        sample, harness/models/RecsysModule.cpp. Dense gradients (sparse=False), as there."""

        def __init__(self, tables, rows, dim, hidden):
            super().__init__()
            self.hidden = nn.Linear(tables * dim, hidden)
            self.out = nn.Linear(hidden, 1)
            self.tables = add_numbered(self, "table", tables,
                                       lambda: nn.EmbeddingBag(rows, dim, mode="sum"))

        def forward(self, lookups):
            bags = [table(lookups[:, t].contiguous()) for t, table in enumerate(self.tables)]
            return self.out(F.relu(self.hidden(torch.cat(bags, 1))))

    return ModelSpec(
        ("recsys-tables", "recsys-rows", "recsys-dim", "recsys-bag", "recsys-hidden",
         "recsys-batch"),
        lambda s: Recsys(s["tables"], s["rows"], s["dim"], s["hidden"]),
        lambda s, g: (torch.randint(0, s["rows"], (s["batch"], s["tables"], s["bag"]),
                                    generator=g),
                      torch.randint(0, 2, (s["batch"], 1), generator=g, dtype=torch.float32)),
        lambda output, target: F.binary_cross_entropy_with_logits(output.float(), target))


TWINS = {"mlp": mlp_spec, "recsys": recsys_spec}  # the models with a twin


def twin_spec(model):
    return TWINS[model]()


def twin_shape(model, options):
    """A twin's shape, keyed by the last word of splitstep's option names."""
    return {name.rsplit("-", 1)[-1]: options[name] for name in twin_spec(model).shape_options}


# --- the zoo: the library's own model ----------------------------------------------------------


def zoo_names():
    """The zoo's models, splitstep's names (gpt2, vit-b16, ...)."""
    return sorted(p.stem.replace("_", "-") for p in ZOO_MODELS.glob("*.py")
                  if p.stem != "__init__")


def zoo_module(model):
    """The zoo module of splitstep's model `model` (zoo/<name>.py), None without one."""
    path = ZOO_MODELS / f"{model.replace('-', '_')}.py"
    if not path.is_file():
        return None
    loader = importlib.util.spec_from_file_location(f"splitstep_zoo_{path.stem}", path)
    module = importlib.util.module_from_spec(loader)
    try:
        loader.loader.exec_module(module)
    except ImportError as error:
        raise BadInput(f"the library model of {model} needs {error.name or error}: "
                       f"pip install './analysis[reference]'") from None
    return module


def library_spec(module):
    """The library model's step: the zoo module's model, batch, forward and loss. Its shape
    options are the keys of its CPU shapes, splitstep's option names (zoo/README.md)."""
    names = [tuple(shape) for shape in module.CPU_SHAPES]
    if len({frozenset(n) for n in names}) != 1:
        raise BadInput(f"zoo model {module.NAME}: its CPU_SHAPES name different options")
    return ModelSpec(names[0], module.library_model, module.example_batch, module.loss,
                     module.forward)


# --- an exported model: the user's own factories ----------------------------------------------


def factory_spec(model_factory, batch_factory, loss):
    """The model and batch `splitstep-analysis export` was given (MODULE:FN each) and its loss:
    the model eager PyTorch trains where splitstep trained its archive. The batch is the
    factory's example batch, whose shapes and dtypes the archive holds; splitstep draws its own
    values of them."""
    from . import export

    build = export.resolve(model_factory, "--model-factory")
    draw = export.resolve(batch_factory, "--batch-factory")
    loss_function = export.loss_function(loss)

    def model(_shape):
        import torch

        built = export.call(build, model_factory, "--model-factory")
        if not isinstance(built, torch.nn.Module):
            raise BadInput(f"--model-factory {model_factory} returned {type(built).__name__}, "
                           f"not an nn.Module")
        return built

    def batch(_shape, _generator):
        return export.batch_tensors(export.call(draw, batch_factory, "--batch-factory"),
                                    batch_factory)

    return ModelSpec((), model, batch, loss_function)
