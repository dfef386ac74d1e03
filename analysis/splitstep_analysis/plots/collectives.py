"""The collectives against message size: bus bandwidth and time, a line per backend, dtype and
placement, nccl-tests' figures beside them."""
import math
import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..rates import BUSBW, rate_column, rate_unit
from ..schema import PLACEMENT_WORDS
from .common import Plot, _keys, _slug, size_label


def collective_frame(cases, with_busbw=True, groups=False):
    """load_cases' rows of collectives that have a bus bandwidth, or (with_busbw False) of those
    that have none (as with one rank, where busbw is not defined): those of all ranks together,
    or with groups True those run within a group of ranks."""
    if cases.empty:
        return cases
    busbw = rate_column(cases, BUSBW)
    has = cases[busbw].notna() if busbw in cases else False
    frame = cases[(cases["family"] == "collective") & (has if with_busbw else ~has)].copy()
    # A case without the collective field is named by its suite.
    frame["collective"] = frame["collective"].fillna(frame["suite"]) if "collective" in frame \
        else frame["suite"]
    for column in ("backend", "dtype", "placement"):
        if column not in frame:
            frame[column] = ""
        frame[column] = frame[column].fillna("")
    # A case run within a group of ranks (--groups) is one group's figure: its lines would
    # join groups of different links; group_figures draws them.
    grouped = frame["group"].map(lambda g: isinstance(g, list)) if "group" in frame else \
        pd.Series(False, index=frame.index)
    return frame[grouped == groups]


def plot_size_lines(axes, frame, label_collective=True, label_file=False, value=None,
                    scale=1.0):
    """One line of `value` (times `scale`; default the busbw) against size per collective,
    backend, dtype, placement and file."""
    value = value or rate_column(frame, BUSBW)
    keys = ["collective", "backend", "dtype", "placement", "file"]
    colors = {}
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for (collective, backend, dtype, placement, path), group in frame.groupby(keys, sort=False):
        label = " ".join(part for part in (
            "splitstep", collective if label_collective else "", backend, dtype,
            PLACEMENT_WORDS.get(placement, placement)) if part)
        if label_file:
            label += f" ({os.path.basename(str(path))})"
        # One colour per line but placement, which often coincides: in place drawn dotted.
        color = colors.setdefault((collective, backend, dtype, path),
                                  cycle[len(colors) % len(cycle)])
        in_place = placement == "in"
        group = group.sort_values("size")
        axes.plot(group["size"], group[value] * scale, color=color, label=label,
                  marker="s" if in_place else "o", markerfacecolor="none" if in_place else color,
                  linestyle=":" if in_place else "-")


def label_algorithms(axes, frame):
    """NCCL's choice (the fields nccl_algorithm and nccl_protocol, where the file has them)
    written above the first point of each line of plot_size_lines and above every point where it
    changes, as "ring/simple": a step in busbw at a change of algorithm is NCCL's choice, one
    without is the link's."""
    if "nccl_algorithm" not in frame or "nccl_protocol" not in frame:
        return
    keys = ["collective", "backend", "dtype", "placement", "file"]
    busbw = rate_column(frame, BUSBW)
    for _, group in frame.groupby(keys, sort=False):
        group = group.sort_values("size")
        previous = None
        for size, y, algorithm, protocol in zip(group["size"], group[busbw],
                                                group["nccl_algorithm"], group["nccl_protocol"]):
            if pd.isna(algorithm) or pd.isna(protocol):
                previous = None
                continue
            text = f"{algorithm}/{protocol}".lower()
            if text != previous:
                axes.annotate(text, (size, y), textcoords="offset points", xytext=(0, 6),
                              ha="center", fontsize=7)
            previous = text


def plot_reference_lines(axes, reference, collective=None):
    """nccl-tests figures from a CSV (collective,size_bytes,time_us,busbw_gbps,label)."""
    if collective is not None:
        reference = reference[reference["collective"] == collective]
    for (name, label), group in reference.groupby(["collective", "label"]):
        axes.plot(group["size_bytes"], group["busbw_gbps"], linestyle="--", marker="x",
                  color="black", label=f"{label} {name} (reference)")


def finish_size_axes(axes, title, ylabel="busbw (GB/s, 1 GB = 1e9 B)"):
    """Log-2 size axis labelled in B/KiB/MiB/GiB, the value axis, grid and legend."""
    axes.set_xscale("log", base=2)
    low, high = axes.get_xlim()
    ticks = [2 ** e for e in range(int(math.ceil(math.log2(max(low, 1)))),
                                   int(math.log2(high)) + 1)]
    step = max(1, len(ticks) // 12)
    axes.set_xticks(ticks[::step], [size_label(t) for t in ticks[::step]], rotation=45,
                    fontsize=8)
    axes.set_xlabel("message size")
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=7)


def _in_order(frame, order):
    """The collectives of `frame`: those of `order` (a catalogue's) first, in its order, then
    any other, by its name, in the frame's order."""
    if frame.empty:
        return []
    present = list(dict.fromkeys(frame["collective"]))
    return [c for c in order if c in present] + [c for c in present if c not in order]


def busbw_figures(cases, world_size=None, reference=None, order=(), expected=(), judged=()):
    """[Plot]: per collective with a bus bandwidth, busbw against size (see _in_order); on
    those of `judged` (the catalogue's node-busbw collectives: collective_facts.judged_by), the
    busbw the verdict expected (`expected`: verdict_expectations'), dash-dot."""
    frame = collective_frame(cases)
    figures = []
    for collective in _in_order(frame, order):
        rows = frame[frame["collective"] == collective]
        figure, axes = plt.subplots(figsize=(9, 5.5))
        plot_size_lines(axes, rows, label_collective=False)
        label_algorithms(axes, rows)
        if reference is not None:
            plot_reference_lines(axes, reference, collective)
        # The verdict's busbw item (allreduce-busbw, docs/verdict.md) is the judged collective's.
        for item in expected:
            if collective in judged and item.family == "collective" and \
                    item.unit == rate_unit(rows, BUSBW):
                at = f", {item.case}" if item.case else ""
                axes.axhline(item.value, color="black", linestyle="-.", linewidth=1,
                             label=f"expected {item.value:.0f} GB/s (verdict{at})")
        ranks = f", {world_size} ranks" if world_size else ""
        finish_size_axes(axes, f"{collective} bus bandwidth{ranks}")
        figure.set_layout_engine("tight")
        figures.append(Plot(f"busbw-{_slug(collective)}", figure, _keys(rows)))
    return figures


def _time_figure(rows, title, label_collective=False):
    """A figure of the rows' median time (us) against size, log axes, one line per backend,
    dtype and placement (and collective, with label_collective)."""
    figure, axes = plt.subplots(figsize=(9, 5.5))
    plot_size_lines(axes, rows, label_collective=label_collective, value="median_s", scale=1e6)
    axes.set_yscale("log")
    finish_size_axes(axes, title, "median time (us, median over ranks)")
    figure.set_layout_engine("tight")
    return figure


def latency_figures(cases, world_size=None, order=()):
    """[Plot]: per collective with a bus bandwidth, its median time against size on log axes
    (nccl-tests' time column): flat where a size is latency-bound, slope 1 where it is
    bandwidth-bound."""
    frame = collective_frame(cases)
    figures = []
    for collective in _in_order(frame, order):
        rows = frame[frame["collective"] == collective]
        ranks = f", {world_size} ranks" if world_size else ""  # a busbw needs two or more
        title = (f"{collective} time{ranks}\nflat: latency-bound; rising with size: "
                 "bandwidth-bound")
        figures.append(Plot(f"latency-{_slug(collective)}", _time_figure(rows, title),
                            _keys(rows)))
    return figures


def time_figures(cases, world_size=None, order=()):
    """[Plot]: per collective without a bus bandwidth (one rank), its median time against size
    on log axes: what a collective costs with no peer."""
    frame = collective_frame(cases, with_busbw=False)
    figures = []
    for collective in _in_order(frame, order):
        rows = frame[frame["collective"] == collective]
        ranks = f", {world_size} rank{'' if world_size == 1 else 's'}" if world_size else ""
        figures.append(Plot(f"time-{_slug(collective)}",
                            _time_figure(rows, f"{collective} time (no busbw{ranks})"),
                            _keys(rows)))
    return figures


def time_together_figures(cases, world_size=None, order=()):
    """[Plot]: every collective without a bus bandwidth (one rank) in one figure of median time
    against size, log axes, a line per collective, backend, dtype and placement: with no peer
    the collectives are copies on one GPU, and a figure per collective would show nine
    alike. One such collective keeps its own figure (time_figures')."""
    frame = collective_frame(cases, with_busbw=False)
    collectives = _in_order(frame, order)
    if len(collectives) < 2:
        return time_figures(cases, world_size, order)
    # Lines in the catalogue's order of collectives, so the legend reads as the file does.
    rows = frame.iloc[np.argsort([collectives.index(c) for c in frame["collective"]],
                                 kind="stable")]
    ranks = f", {world_size} rank{'' if world_size == 1 else 's'}" if world_size else ""
    title = f"{len(collectives)} collectives' time (no busbw{ranks})"
    return [Plot("time-collectives", _time_figure(rows, title, label_collective=True),
                 _keys(rows))]


def busbw_together_figure(cases, title, reference=None):
    """Plot of every collective (of every file) in `cases` in one figure, or None."""
    frame = collective_frame(cases)
    if frame.empty:
        return None
    figure, axes = plt.subplots(figsize=(9, 5.5))
    plot_size_lines(axes, frame, label_file=frame["file"].nunique() > 1)
    if reference is not None:
        plot_reference_lines(axes, reference)
    finish_size_axes(axes, title)
    figure.set_layout_engine("tight")
    return Plot("busbw", figure, _keys(frame))
