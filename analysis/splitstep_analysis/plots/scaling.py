"""Weak-scaling efficiency T_1 / T_N against the number of GPUs, over several files."""
import os

import matplotlib.pyplot as plt
import pandas as pd

from ..results import load_derived
from .common import Plot


def scaling_rows(documents):
    """One row per file and workload with T_1, T_N and efficiency; [] without those figures.

    `documents` is a list of (path, document). T_N is T_ddp (overlap) where it was measured,
    else T_seq (sequential); the efficiency is splitstep's step/efficiency/<that mode>."""
    rows = []
    for path, document in documents:
        derived = load_derived(document)
        if derived.empty:
            continue
        step = derived[derived["suite"] == "step"]
        for subject, figures in step.groupby("subject", sort=False):
            values = figures.set_index("tag")["value"]
            mode = "overlap" if "step/time/overlap" in values else "sequential"
            tags = ("step/time/single", f"step/time/{mode}", f"step/efficiency/{mode}")
            if not all(tag in values for tag in tags):
                continue
            rows.append({"file": os.path.basename(path), "workload": subject,
                         "ranks": document["metadata"].get("world_size"), "mode": mode,
                         "T_1 (ms)": values[tags[0]] * 1e3, "T_N (ms)": values[tags[1]] * 1e3,
                         "efficiency (%)": values[tags[2]]})
    return rows


def scaling_figure(documents):
    """Plot of the weak-scaling efficiency T_1 / T_N against the number of GPUs, one line per
    workload and mode over the files given, or None.

    A run on one rank has no weak-scaling efficiency: its T_1 / T_N compares the step without
    sync to the same step with bucketing and sync calls but no peer. It is drawn apart, as a
    hollow marker named so, and the line starts at the runs with peers."""
    rows = scaling_rows(documents)
    if not rows:
        return None
    table = pd.DataFrame(rows).sort_values(["workload", "ranks", "file"], kind="stable")
    figure, axes = plt.subplots(figsize=(9, 5.5))
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    alone_labelled = False
    for index, ((workload, mode), group) in enumerate(table.groupby(["workload", "mode"],
                                                                    sort=False)):
        color = cycle[index % len(cycle)]
        peers = group[group["ranks"] > 1]
        if not peers.empty:
            axes.plot(peers["ranks"], peers["efficiency (%)"], marker="o", color=color,
                      label=f"{workload} ({mode})")
        alone = group[group["ranks"] == 1]
        if not alone.empty:
            axes.scatter(alone["ranks"], alone["efficiency (%)"], marker="o", s=50,
                         facecolors="none", edgecolors=color,
                         label=f"{workload} ({mode})" if peers.empty else None)
            alone_labelled = True
        side = 1 if index % 2 else -1  # labels of neighbouring lines on either side
        for _, row in group.iterrows():
            axes.annotate(f"{row['efficiency (%)']:.1f}%\n{row['T_N (ms)']:.3g} ms",
                          (row["ranks"], row["efficiency (%)"]), xytext=(7 * side, -4),
                          textcoords="offset points", fontsize=7, va="top", color=color,
                          ha="left" if side > 0 else "right")
    if alone_labelled:
        axes.scatter([], [], marker="o", facecolors="none", edgecolors="black",
                     label="hollow: one rank with sync on (bucketing and sync calls, no peer; "
                           "not a scaling point)")
    axes.axhline(100, color="black", linestyle="--", linewidth=1, label="100%: T_N = T_1")
    counts = sorted(set(table["ranks"]))
    axes.set_xscale("log", base=2)
    axes.set_xticks(counts, [str(n) for n in counts])
    axes.minorticks_off()
    axes.set_xlim(min(counts) / 1.5, max(counts) * 1.5)
    axes.set_ylim(0, max(110.0, table["efficiency (%)"].max() * 1.1))
    axes.set_xlabel("GPUs (ranks)")
    axes.set_ylabel("weak-scaling efficiency T_1 / T_N (%)")
    axes.set_title("Training step: one rank's step (T_1) against N ranks' (T_N), same batch per "
                   "rank\nlabels: efficiency and T_N", fontsize=10)
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=7, loc="lower left")
    figure.set_layout_engine("tight")
    return Plot("scaling", figure, frozenset())
