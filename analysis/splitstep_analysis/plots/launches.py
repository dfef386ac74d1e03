"""A step's three figures: eager PyTorch, splitstep's step and its graphed step."""
import matplotlib.pyplot as plt
import numpy as np

from .common import Plot


def launches_figure(rows):
    """A step's three figures per case (launches.Launches rows): eager PyTorch, splitstep's
    step and its graphed step as bars (median ms), the GPU's kernel time in splitstep's step as
    a line across them."""
    figure, axis = plt.subplots(figsize=(7.5, 1.6 + 0.75 * len(rows)))
    bars = (("eager PyTorch (Python launches)", "eager_s", "#bdbdbd"),
            ("splitstep (C++ launches)", "splitstep_s", "#4c72b0"),
            ("graphed (no launches)", "graphed_s", "#55a868"))
    height = 0.8 / len(bars)
    positions = np.arange(len(rows))
    for i, (label, field, color) in enumerate(bars):
        values = [getattr(r, field) for r in rows]
        y = positions + (i - 1) * height
        axis.barh(y, [v * 1e3 if v is not None else 0 for v in values], height, color=color,
                  label=label)
        for at, value in zip(y, values):
            axis.annotate(f"{value * 1e3:.3g}" if value is not None else "not graphed",
                          (value * 1e3 if value is not None else 0, at), xytext=(3, 0),
                          textcoords="offset points", va="center", fontsize=7)
    for at, row in zip(positions, rows):
        if row.kernel_s is not None:
            axis.plot([row.kernel_s * 1e3] * 2, [at - 0.45, at + 0.45], color="#c44e52", lw=1.5,
                      label="kernel time (splitstep's step)" if at == 0 else None)
    axis.set_yticks(positions, [r.case for r in rows], fontsize=8)
    axis.invert_yaxis()
    longest = max(v for r in rows for v in (r.eager_s, r.splitstep_s, r.graphed_s, r.kernel_s)
                  if v is not None)
    axis.set_xlim(0, longest * 1e3 * 1.15)  # room for the longest bar's number
    axis.set_xlabel("median step (ms)", fontsize=8)
    axis.grid(True, axis="x", alpha=0.3)
    # The legend above the bars, where it hides none of them.
    axis.legend(fontsize=7, ncol=2, frameon=False, loc="lower center",
                bbox_to_anchor=(0.5, 1.0))
    figure.suptitle("One step, three figures: what the host's launches cost", fontsize=10)
    figure.set_layout_engine("tight")
    return Plot("launches", figure, frozenset())
