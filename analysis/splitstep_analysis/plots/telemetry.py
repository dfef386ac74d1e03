"""Telemetry by phase: SM clock, power and the power cap's share, per sync mode."""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..vocabulary import field_values, in_order, parts
from .common import Plot, _keys, _slug

# The sync modes' colors, in the order of the file's modes.
PALETTE = ("#8c8c8c", "#4c72b0", "#c44e52", "#55a868", "#8172b3", "#937860")


def telemetry_figures(telemetry):
    """[Plot]: per model and precision, each phase's mean SM clock, power and the
    power cap's share of the readings, one bar per sync mode (averaged over ranks). Every axis
    starts at zero, so that a dip of 2% looks like one, and the limits are drawn: the GPU's
    maximum SM clock and the enforced power limit (highest over ranks) where the file has them.

    `telemetry` is load_telemetry's frame."""
    if telemetry.empty or "sm_clock_mhz_mean" not in telemetry:
        return []
    steps = telemetry[telemetry["family"] == "step"]
    if steps.empty or not {"model", "precision", "mode"} <= set(steps):
        return []
    power = next((c for c in ("power_w_mean", "power_avg_w_mean") if c in steps), None)
    panels = [("sm_clock_mhz_mean", "SM clock (MHz)", "max_clock_mhz", "maximum SM clock")]
    if power:
        panels.append((power, "power (W)" if power == "power_w_mean" else "power, 1 s avg (W)",
                       "power_limit_w_max", "power limit"))
    panels.append(("limit power cap", "power cap held\n(% of readings)", None, None))
    drawn = parts(telemetry, "step") + ["comm", "step"]
    mode_colors = dict(zip(field_values(telemetry, "step", "mode"), PALETTE))
    figures = []
    for (model, precision), workload in steps.groupby(["model", "precision"], sort=False):
        series = [p for p in drawn if p in set(workload["series"])]
        modes = [m for m in in_order(workload["mode"], "step", "mode", telemetry)
                 if m in mode_colors]
        figure, axes = plt.subplots(len(panels), 1, figsize=(max(7.0, 1.2 * len(series)), 7.5),
                                    sharex=True, squeeze=False)
        width = 0.8 / max(len(modes), 1)
        for row, (column, label, limit, limit_label) in enumerate(panels):
            panel = axes[row][0]
            for i, mode in enumerate(modes):
                rows = workload[workload["mode"] == mode]
                values = [rows[rows["series"] == p][column].mean() if column in rows else np.nan
                          for p in series]
                if column == "limit power cap":  # absent: the cap never held
                    values = [0.0 if np.isnan(v) else 100 * v for v in values]
                panel.bar(np.arange(len(series)) + (i - (len(modes) - 1) / 2) * width, values,
                          width, color=mode_colors.get(mode, "#9e9e9e"), label=mode)
            top = workload[limit].max() if limit in workload else np.nan
            if not pd.isna(top):
                panel.axhline(top, color="black", linestyle="--", linewidth=1,
                              label=f"{limit_label} {top:.0f}")
                panel.annotate(f"{limit_label} {top:.0f}", (1.0, top), xycoords=("axes fraction",
                               "data"), xytext=(-4, 3), textcoords="offset points", ha="right",
                               fontsize=7)
            panel.set_ylim(0, 100 if column == "limit power cap" else None)
            if not pd.isna(top):  # room above the limit for its label
                panel.set_ylim(0, max(panel.get_ylim()[1], top * 1.12))
            panel.set_ylabel(label, fontsize=9)
            panel.grid(True, axis="y", alpha=0.3)
        axes[-1][0].set_xticks(np.arange(len(series)), series)
        handles, labels = axes[-1][0].get_legend_handles_labels()
        figure.legend(handles, labels, title="mode", fontsize=8, ncol=len(modes),
                      loc="lower center", frameon=False)
        figure.suptitle(f"{model} {precision}: SM clock and power by phase (telemetry, mean over "
                        "ranks)", fontsize=11)
        figure.set_layout_engine("tight", rect=(0, 0.07, 1, 1))
        figures.append(Plot(f"telemetry-{_slug(model)}-{_slug(precision)}", figure,
                            _keys(workload[workload["series"].isin(series)])))
    return figures
