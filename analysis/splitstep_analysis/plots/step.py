"""The step breakdown: per rank, where the step's time goes, phase by phase."""
import matplotlib.pyplot as plt
import numpy as np

from ..vocabulary import in_order, parts
from .common import Plot, _keys, _slug

# A GPU rank's detail series of kernel time per phase and per step (docs/step.md).
BUSY_PREFIX = "gpu busy "
# The phases' colors, in the order of the file's phases.
PALETTE = ("#8c8c8c", "#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860",
           "#da8bc3")


def step_breakdown_figures(ranks):
    """[Plot]: per model and precision, the phase medians per mode and rank.

    `ranks` is load_ranks' frame (one row per case, series and rank)."""
    if ranks.empty:
        return []
    steps = ranks[ranks["family"] == "step"].copy()
    if steps.empty:
        return []
    # A step case's fields name its model, precision and mode (v1 files' too, once normalised):
    # its name is for people.
    phases = parts(ranks, "step")
    colors = dict(zip(phases, PALETTE))
    busy = [BUSY_PREFIX + phase for phase in phases + ["step"]]
    figures = []
    for (model, precision), workload in steps.groupby(["model", "precision"], sort=False):
        modes = in_order(workload["mode"], "step", "mode", ranks)
        ranks_count = max(workload.groupby("mode")["rank"].nunique())
        width = max(7.0, 1.2 + len(modes) * max(2.2, 0.6 + 0.55 * ranks_count))
        figure, axes = plt.subplots(1, len(modes), figsize=(width, 4.8), sharey=True,
                                    squeeze=False)
        handles = {}
        drawn = workload[workload["series"].isin(phases + ["comm", "step"] + busy)]
        for panel, mode in zip(axes[0], modes):
            table = workload[workload["mode"] == mode].pivot_table(
                index="rank", columns="series", values="median_s", aggfunc="first") * 1e3
            positions = np.arange(len(table.index))
            bottom = np.zeros(len(positions))
            for phase in phases:
                if phase not in table:
                    continue
                values = table[phase].fillna(0.0).to_numpy()
                handles[phase] = panel.bar(positions, values, 0.6, bottom=bottom,
                                           color=colors[phase], label=phase)
                bottom += values
            # The GPU's kernel time inside each phase, beside the phase's wall time: where the
            # narrow bar is shorter than the wide one, the GPU waited for the host.
            busy_bottom = np.zeros(len(positions))
            for phase in phases:
                if BUSY_PREFIX + phase not in table:
                    continue
                values = table[BUSY_PREFIX + phase].fillna(0.0).to_numpy()
                handles["busy"] = panel.bar(positions - 0.38, values, 0.14, bottom=busy_bottom,
                                            color=colors[phase], edgecolor="black",
                                            linewidth=0.4, label="GPU busy (kernels) per phase")
                busy_bottom += values
            if BUSY_PREFIX + "step" in table:
                handles["busy step"] = panel.scatter(
                    positions - 0.38, table[BUSY_PREFIX + "step"], marker="_", s=120,
                    color="black", zorder=3, label="GPU busy in the step")
            if "comm" in table:
                handles["comm"] = panel.bar(positions + 0.38, table["comm"].fillna(0.0), 0.14,
                                            color="white", edgecolor="black", hatch="///",
                                            label="comm (overlaps the phases)")
            if "step" in table:
                handles["step"] = panel.scatter(positions, table["step"], marker="_", s=900,
                                                color="black", zorder=3, label="step median")
            step = f"\nstep {np.median(table['step']):.3g} ms" if "step" in table else ""
            panel.set_title(f"{mode}{step}", fontsize=10)
            panel.set_xticks(positions, [f"rank {r}" for r in table.index])
            panel.set_xlim(-0.7 if busy_bottom.any() else -0.6, len(positions) - 0.25)
            panel.grid(True, axis="y", alpha=0.3)
        axes[0][0].set_ylabel("per-rank median (ms)")
        figure.suptitle(f"{model} {precision}: where the step time goes (phase medians per rank)",
                        fontsize=11)
        figure.legend(handles=list(handles.values()), loc="lower center",
                      ncol=min(len(handles), 4), fontsize=8, frameon=False)
        figure.set_layout_engine("tight", rect=(0, 0.1, 1, 1))
        figures.append(Plot(f"step-{_slug(model)}-{_slug(precision)}", figure, _keys(drawn)))
    return figures
