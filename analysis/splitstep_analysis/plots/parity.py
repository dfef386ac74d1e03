"""Parity: splitstep's phases beside the same model's in PyTorch eager (parity.py's CSV)."""
import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..schema import BadInput
from .common import Plot

# The columns of tests/reference/parity.py --csv this figure reads (docs/parity.md).
PARITY_COLUMNS = ("model", "precision", "shape", "mode", "world_size", "phase", "splitstep_s",
                  "reference_s", "ratio", "verdict", "reference", "splitstep_file")
VERDICT_COLORS = {"ok": "black", "faster": "#2b8a3e", "slower": "#c92a2a"}


def read_parity(path):
    """parity.py's CSV (one row per model, shape, mode and phase: splitstep's median and the
    library's or twin's) as a DataFrame. Raises BadInput naming the file."""
    try:
        frame = pd.read_csv(path)
    except (OSError, ValueError) as error:
        raise BadInput(f"{path}: {error}") from None
    missing = [c for c in PARITY_COLUMNS if c not in frame]
    if missing:
        raise BadInput(f"{path}: not parity.py's CSV: no column {', '.join(missing)}")
    if frame.empty:
        raise BadInput(f"{path}: no rows")
    return frame


def parity_figure(parity):
    """Plot of splitstep's phases beside the library model's (or the twin's) in PyTorch eager:
    one panel per model, shape and mode, per phase a pair of bars (median ms) and the ratio
    splitstep / reference, coloured by parity.py's verdict."""
    groups = list(parity.groupby(["model", "precision", "shape", "mode", "world_size",
                                  "splitstep_file"], sort=False))
    columns = min(4, len(groups))
    rows = -(-len(groups) // columns)
    figure, axes = plt.subplots(rows, columns, squeeze=False,
                                figsize=(3.6 * columns, 3.3 * rows + 0.6))
    for panel, ((model, precision, _, mode, ranks, source), table) in zip(axes.flat, groups):
        positions = np.arange(len(table))
        panel.bar(positions - 0.2, table["splitstep_s"] * 1e3, 0.4, color="#4c72b0",
                  label="splitstep")
        reference = table["reference"].iloc[0]
        panel.bar(positions + 0.2, table["reference_s"] * 1e3, 0.4, color="#bdbdbd",
                  label="the library's model" if reference == "library" else "the twin")
        for x, high, ratio, verdict in zip(positions, np.maximum(table["splitstep_s"],
                                                                 table["reference_s"]) * 1e3,
                                           table["ratio"], table["verdict"]):
            panel.annotate(f"{ratio:.3f}", (x, high), xytext=(0, 2), textcoords="offset points",
                           ha="center", fontsize=7, color=VERDICT_COLORS.get(verdict, "#e67700"))
        panel.set_xticks(positions, table["phase"], fontsize=7)
        panel.set_ylim(0, None)
        panel.set_ylabel("median (ms)", fontsize=8)
        stem = os.path.splitext(os.path.basename(str(source)))[0]
        panel.set_title(f"{model} {precision} {mode}, {ranks} rank{'' if ranks == 1 else 's'}"
                        f"\n{stem}", fontsize=8)
        panel.grid(True, axis="y", alpha=0.3)
    for panel in list(axes.flat)[len(groups):]:
        panel.axis("off")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    figure.suptitle("Parity: splitstep's step against the same model in PyTorch eager, per phase"
                    "\nnumbers: splitstep / reference (black ok, green faster, red slower, as "
                    "parity.py judged)", fontsize=10)
    figure.set_layout_engine("tight", rect=(0, 0.05, 1, 1))
    return Plot("parity", figure, frozenset())
