"""Collectives run within groups of ranks (--groups): each pair's or group's bus bandwidth."""
import matplotlib.pyplot as plt
import numpy as np

from ..rates import BUSBW, rate_column
from ..schema import PLACEMENT_WORDS
from .collectives import _in_order, collective_frame
from .common import Plot, _keys, _slug, size_label


def _pair_heatmap(panel, rows, ranks):
    """busbw of each pair of ranks as a symmetric ranks x ranks matrix on `panel`; returns the
    image (the diagonal and the pairs not run are blank)."""
    matrix = np.full((ranks, ranks), np.nan)
    for group, value in zip(rows["group"], rows[rate_column(rows, BUSBW)]):
        matrix[group[0], group[1]] = matrix[group[1], group[0]] = value
    image = panel.imshow(matrix, cmap="viridis", vmin=0, vmax=np.nanmax(matrix))
    for (i, j), value in np.ndenumerate(matrix):
        if not np.isnan(value):
            panel.text(j, i, f"{value:.0f}", ha="center", va="center", fontsize=7,
                       color="white" if value < 0.6 * np.nanmax(matrix) else "black")
    panel.set_xticks(range(ranks))
    panel.set_yticks(range(ranks))
    panel.set_xlabel("rank")
    panel.set_ylabel("rank")
    return image


def group_figures(cases, world_size=None, order=()):
    """[Plot]: per collective, backend, dtype and placement run within groups of ranks
    (--groups), each group's busbw, one panel per size: for pairs a heatmap of rank against
    rank, for other groups a bar per group. A slow link is the pale row and column of one rank,
    or the one pale cell of a pair."""
    frame = collective_frame(cases, groups=True)
    figures = []
    for collective in _in_order(frame, order):
        of_collective = frame[frame["collective"] == collective]
        for (backend, dtype, placement), rows in of_collective.groupby(
                ["backend", "dtype", "placement"], sort=False):
            sizes = sorted(set(rows["size"]))
            pairs = all(len(group) == 2 for group in rows["group"])
            ranks = world_size or 1 + max(max(group) for group in rows["group"])
            figure, axes = plt.subplots(1, len(sizes), squeeze=False,
                                        figsize=(max(6.0, 3.8 * len(sizes)), 4.2))
            for panel, size in zip(axes[0], sizes):
                at = rows[rows["size"] == size]
                if pairs:
                    figure.colorbar(_pair_heatmap(panel, at, ranks), ax=panel,
                                    label="busbw (GB/s)", shrink=0.8)
                else:
                    labels = [",".join(map(str, group)) for group in at["group"]]
                    panel.barh(np.arange(len(at)), at[rate_column(at, BUSBW)],
                                color="#4c72b0")
                    panel.set_yticks(np.arange(len(at)), [f"group {g}" for g in labels],
                                     fontsize=7)
                    panel.invert_yaxis()
                    panel.set_xlim(0, None)
                    panel.set_xlabel("busbw (GB/s)")
                panel.set_title(size_label(size), fontsize=9)
            modes = "/".join(sorted(set(rows["group_mode"].dropna()))) \
                if "group_mode" in rows else ""
            what = "per pair of ranks" if pairs else "per group of ranks"
            figure.suptitle(" ".join(part for part in (
                collective, backend, dtype, PLACEMENT_WORDS.get(placement, placement)) if part) +
                f": busbw {what}" + (f" ({modes})" if modes else ""), fontsize=10)
            figure.set_layout_engine("tight")
            name = "-".join(_slug(part) for part in (collective, backend, dtype, placement)
                            if part)
            figures.append(Plot(f"{'pairs' if pairs else 'groups'}-{name}", figure, _keys(rows)))
    return figures
