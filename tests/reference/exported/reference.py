"""Exports a model with `splitstep-analysis export` and writes what eager PyTorch computes for it.

  reference.py MODULE:MODEL --batch MODULE:BATCH [--loss LOSS] [--precision bf16] --out-dir DIR

DIR/model.pt2 is the command's archive; DIR/reference.pt holds, for the factories' weights and
batch, eager PyTorch's loss and gradients after one forward and backward, the weights it started
from and the batch, the floating elements the archive's graph computes (what splitstep's memory
bound counts, from torch's own reading of the archive), for splitstep_exported_check to hold the archive's graph to; with --trace, torch.profiler's
Chrome trace of that forward and backward, whose operations kernel_table.py --cpu-ops holds the
graph's to. For a standard
loss it also holds the per-sample losses, from torch.nn.functional's reduction "none" on eager's
output, and the loss is held to that function's own mean. With --precision bf16, model and loss
run under torch.autocast("cpu", torch.bfloat16), as splitstep's bf16 runs its graph.
"""
import argparse
import contextlib
import pathlib
import sys

import torch
import torch.nn.functional as F

from splitstep_analysis import cli
from splitstep_analysis.export import EagerMaskDecisions, loss_function, resolve, wrapper_class


def per_sample(loss, output, target):
    """torch's own per-sample losses and their mean, or (None, None) for another loss."""
    if loss == "mse":
        return (F.mse_loss(output, target, reduction="none"), F.mse_loss(output, target))
    if loss == "cross-entropy":
        logits, labels = output.reshape(-1, output.shape[-1]), target.reshape(-1)
        return (F.cross_entropy(logits, labels, reduction="none"), F.cross_entropy(logits, labels))
    return None, None


def computed_floating_elements(program):
    """What splitstep's memory bound counts of a graph (models/ExportedModule.cpp), from torch's
    own graph of the archive: the floating elements of every tensor an operation returns into
    storage of its own (its schema's return is no alias), subgraphs of scopes included."""
    total = 0
    for module in program.graph_module.modules():
        if not isinstance(module, torch.fx.GraphModule):
            continue
        for node in module.graph.nodes:
            if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
                continue
            returns, values = node.target._schema.returns, node.meta.get("val")
            # One return (a tensor, or a list of them: broadcast_tensors) or a tuple of them.
            values = [values] if len(returns) == 1 else values or []
            for returned, value in zip(returns, values):
                if returned.alias_info is not None:
                    continue
                for tensor in value if isinstance(value, (list, tuple)) else [value]:
                    if isinstance(tensor, torch.Tensor) and tensor.is_floating_point():
                        total += tensor.numel()
    return total


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--batch", required=True)
    parser.add_argument("--loss", default="cross-entropy")
    parser.add_argument("--precision", choices=("fp32", "bf16"), default="fp32")
    parser.add_argument("--out-dir", required=True, type=pathlib.Path)
    parser.add_argument("--trace", type=pathlib.Path,
                        help="write the step's CPU operations here (a Chrome trace)")
    args = parser.parse_args(argv)
    archive = args.out_dir / "model.pt2"
    status = cli.main(["export", args.model, "--batch", args.batch, "--loss", args.loss,
                       "-o", archive])
    if status != 0:
        return status
    wrapped = wrapper_class()(resolve(args.model, "model")(), loss_function(args.loss)).train()
    state = {k: v.detach().clone() for k, v in wrapped.state_dict().items()}
    batch = tuple(resolve(args.batch, "batch")())
    profiler = (torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])
                if args.trace else contextlib.nullcontext())
    # transformers' run-time mask decisions in scopes of their own: the graph may leave out
    # what eager computes to make them (EagerMaskDecisions).
    with profiler, EagerMaskDecisions().labelled():
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.precision == "bf16"):
            output = wrapped.model(*batch[:-1])
            loss = wrapped.loss(output, batch[-1])
        loss.backward()
    if args.trace:
        profiler.export_chrome_trace(str(args.trace))
    # Outside the profile (the graph computes none beside its loss), under the same autocast.
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.precision == "bf16"):
        samples, mean = per_sample(args.loss, output.detach(), batch[-1])
    if mean is not None and not torch.allclose(loss.detach(), mean, rtol=1e-6, atol=0):
        print(f"the exporter's {args.loss} {loss.item()} is not torch's {mean.item()}")
        return 1
    torch.save({
        "state": state,
        "batch": list(batch),
        "loss": loss.detach(),
        "samples": samples,
        "grads": {n: p.grad for n, p in wrapped.named_parameters() if p.requires_grad},
        "buffers": {n: b.detach().clone() for n, b in wrapped.named_buffers()},
        "floating_elements": computed_floating_elements(torch.export.load(archive)),
    }, args.out_dir / "reference.pt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
