"""Memory bandwidth per kind of copy and size."""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..rates import MEMORY_BANDWIDTH, rate_column, rate_unit
from .common import Plot, _keys, size_label, spans_orders
from .verdict import _expected_by


def membw_figure(cases, expected=()):
    """Plot of memory bandwidth (GB/s) per kind of copy and size, or None: a log axis where the
    rates span LOG_SPAN or more, and the verdict's expected figure (`expected`:
    verdict_expectations') as a black dash over the bar of the case it judged."""
    rate = rate_column(cases, MEMORY_BANDWIDTH) if not cases.empty else None
    if rate not in cases:
        return None
    frame = cases[(cases["family"] == "membw") & cases[rate].notna()]
    if frame.empty or "bytes" not in frame:
        return None
    sizes = sorted(set(frame["bytes"]))
    kinds = list(dict.fromkeys(frame["kind"])) if "kind" in frame else [""]
    # Only at the case it judged: an HBM figure drawn across the host copies would mislead.
    by_case = _expected_by(frame, [e for e in expected if e.family == "membw"],
                           rate_unit(frame, MEMORY_BANDWIDTH), "case", lambda e: None)
    width = 0.8 / len(kinds)
    figure, axes = plt.subplots(figsize=(max(7.0, 2.0 + 1.2 * len(sizes) * len(kinds)), 5))
    for index, kind in enumerate(kinds):
        rows = frame[frame["kind"] == kind] if kind else frame
        rates = rows.groupby("bytes")[rate].median().reindex(sizes)
        positions = np.arange(len(sizes)) + (index - (len(kinds) - 1) / 2) * width
        axes.bar(positions, rates.to_numpy(dtype=float), width * 0.9, label=kind or None)
        for x, value in zip(positions, rates):
            if not pd.isna(value):
                axes.annotate(f"{value:.0f}", (x, value), textcoords="offset points",
                              xytext=(0, 3), ha="center", fontsize=7)
        for case, size in zip(rows["case"], rows["bytes"]):
            if case in by_case:
                x = positions[sizes.index(size)]
                value = by_case[case].value
                axes.hlines(value, x - width / 2, x + width / 2, color="black",
                            linestyle="-.", linewidth=1.5, label="expected (verdict)")
                axes.annotate(f"exp. {value:.0f}", (x, value), textcoords="offset points",
                              xytext=(0, -9), ha="center", fontsize=6)
    axes.set_xticks(np.arange(len(sizes)), [size_label(s) for s in sizes])
    axes.set_xlabel("bytes moved")
    log = spans_orders(frame[rate])
    axes.set_ylabel("GB/s (1 GB = 1e9 B), median over ranks" + (", log axis" if log else ""))
    if log:
        axes.set_yscale("log")
        axes.set_ylim(frame[rate].min() / 2, frame[rate].max() * 2)
    axes.set_title("memory bandwidth per kind")
    axes.grid(True, axis="y", alpha=0.3)
    if kinds != [""] or by_case:
        handles, labels = axes.get_legend_handles_labels()
        shown = dict(zip(labels, handles))  # the expected dashes, once
        axes.legend(shown.values(), shown.keys(), fontsize=8)
    figure.set_layout_engine("tight")
    return Plot("membw", figure, _keys(frame))
