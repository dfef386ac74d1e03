"""Exports a model with `splitstep-analysis export` and writes what eager PyTorch computes for it.

  reference.py MODULE:MODEL --batch MODULE:BATCH [--loss LOSS] --out-dir DIR

DIR/model.pt2 is the command's archive; DIR/reference.pt holds, for the factories' weights and
batch, eager PyTorch's loss and gradients after one forward and backward, the weights it started
from and the batch, for splitstep_exported_check to hold the archive's graph to.
"""
import argparse
import pathlib
import sys

import torch

from splitstep_analysis import cli
from splitstep_analysis.export import loss_function, resolve, wrapper_class


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--batch", required=True)
    parser.add_argument("--loss", default="cross-entropy")
    parser.add_argument("--out-dir", required=True, type=pathlib.Path)
    args = parser.parse_args(argv)
    archive = args.out_dir / "model.pt2"
    status = cli.main(["export", args.model, "--batch", args.batch, "--loss", args.loss,
                       "-o", archive])
    if status != 0:
        return status
    wrapped = wrapper_class()(resolve(args.model, "model")(), loss_function(args.loss)).train()
    state = {k: v.detach().clone() for k, v in wrapped.state_dict().items()}
    batch = tuple(resolve(args.batch, "batch")())
    loss = wrapped(*batch)
    loss.backward()
    torch.save({
        "state": state,
        "batch": list(batch),
        "loss": loss.detach(),
        "grads": {n: p.grad for n, p in wrapped.named_parameters() if p.requires_grad},
        "buffers": {n: b.detach().clone() for n, b in wrapped.named_buffers()},
    }, args.out_dir / "reference.pt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
