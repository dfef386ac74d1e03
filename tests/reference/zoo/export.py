"""Writes what the library's own model computes, for splitstep_zoo_check to hold splitstep's
reproduction of it to: the library model (timm, torchvision, transformers, built from its config,
no weights downloaded) at a shape, its parameters and buffers by name in registration order, one
batch, the output, the loss and every parameter's gradient after one backward, in fp32 on the
CPU, with torch.save; then, from those weights and gradients, the parameters after two steps of
torch.optim's SGD and AdamW in each implementation (foreach=False, foreach=True, fused=True), on
the library model's own parameter list (a tied head is one parameter there).

    python export.py --model gpt2 --out-dir DIR [--seed 7]

writes DIR/<model>-<i>.pt for each shape of the model's CPU_SHAPES, and DIR/<model>-0-captured.pt:
the first shape as the library runs under a CUDA graph's capture, where transformers computes on
the device what it asks the host eagerly (masking_utils.is_tracing is true there). Each model of the zoo has a
module in analysis/splitstep_analysis/zoo (<name>.py) that names it and builds it; see
its README.md.
"""
import argparse
import contextlib
import pathlib
import sys
from unittest import mock

import torch

# The zoo's modules are the analysis package's (analysis/splitstep_analysis/zoo).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "analysis"))
from splitstep_analysis.eager_models import zoo_module  # noqa: E402


# The settings splitstep's step suite gives each optimizer (suites/step/Optimizer's
# optimizerSettings with the step's defaults); the rest are torch.optim's defaults.
OPTIMIZERS = {
    "sgd": lambda params, **impl: torch.optim.SGD(params, lr=0.01, momentum=0.9, **impl),
    "adamw": lambda params, **impl: torch.optim.AdamW(params, lr=1e-3, **impl),
}
IMPLEMENTATIONS = {
    "loop": {"foreach": False},
    "foreach": {"foreach": True},
    "fused": {"fused": True},
}
STEPS = 2  # the second step reads the state the first left: moments, momentum, step counts


def optimizer_steps(model):
    """The parameters by name after STEPS steps of each optimizer and implementation, each from
    the model's weights and gradients as they are now (restored after each)."""
    named = list(model.named_parameters())
    weights = [p.detach().clone() for _, p in named]
    grads = [p.grad.detach().clone() for _, p in named]
    after = {}
    for optimizer_name, make in OPTIMIZERS.items():
        for impl_name, impl in IMPLEMENTATIONS.items():
            optimizer = make([p for _, p in named], **impl)
            for _ in range(STEPS):
                for (_, p), g in zip(named, grads):
                    p.grad = g.clone()
                optimizer.step()
            after[f"{optimizer_name}-{impl_name}"] = {
                name: p.detach().clone() for name, p in named}
            with torch.no_grad():
                for (_, p), w in zip(named, weights):
                    p.copy_(w)
    for (_, p), g in zip(named, grads):
        p.grad = g
    return after


def as_captured():
    """transformers' own test of a capture (is_tracing: dynamo, jit, or a stream capturing),
    answered yes, as torch.cuda.graph's capture would on the GPU. Models of other libraries do
    not ask."""
    try:
        import transformers.masking_utils  # noqa: F401
    except ImportError:
        return contextlib.nullcontext()
    return mock.patch("transformers.masking_utils.is_tracing", return_value=True)


def export(module, shape, seed, path, captured=False):
    torch.manual_seed(seed)
    model = module.library_model(shape).float().train()
    generator = torch.Generator().manual_seed(seed + 1)
    batch, target = module.example_batch(shape, generator)
    with as_captured() if captured else contextlib.nullcontext():
        output = module.forward(model, batch)
    loss = module.loss(output, target)
    loss.backward()
    # named_parameters() gives a tied parameter once, under its first name: DDP's view too.
    names = [name for name, _ in model.named_parameters()]
    torch.save({
        "model": module.NAME,
        "reproduces": module.REPRODUCES,
        "shape": {k: int(v) for k, v in shape.items()},
        "seed": seed,
        "captured": captured,
        "parameter_names": names,
        "parameters": sum(p.numel() for p in model.parameters()),
        "state": {k: v.detach().clone() for k, v in model.state_dict().items()},
        "input": batch,
        "target": target,
        "output": output.detach(),
        "loss": loss.detach(),
        "grads": {name: p.grad.detach().clone() for name, p in model.named_parameters()},
        "optimizer_steps": STEPS,
        "after_optimizer": optimizer_steps(model),
    }, path)
    return names


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a zoo model's name, e.g. gpt2")
    parser.add_argument("--out-dir", required=True, type=pathlib.Path)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    module = zoo_module(args.model)
    if module is None:
        raise SystemExit(f"export.py: no zoo model '{args.model}'")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    for i, shape in enumerate(module.CPU_SHAPES):
        path = args.out_dir / f"{module.NAME}-{i}.pt"
        names = export(module, shape, args.seed + i, path)
        print(f"{path}: {module.REPRODUCES} at {shape}, {len(names)} parameter tensors")
    path = args.out_dir / f"{module.NAME}-0-captured.pt"
    export(module, module.CPU_SHAPES[0], args.seed, path, captured=True)
    print(f"{path}: {module.REPRODUCES} at {module.CPU_SHAPES[0]}, as under capture")
    return 0


if __name__ == "__main__":
    sys.exit(main())
