"""The bucket ledger: each gradient bucket's collective against the end of backward."""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..vocabulary import field_values, in_order
from .common import Plot, _keys, _slug


def bucket_ledger_figures(cases):
    """[Plot]: per model and precision, one panel per synchronised mode: each gradient bucket's
    collective on a time axis whose 0 is the end of backward (median over ranks): the wait
    before it starts (launch delay), the collective (comm), and when its last gradient was
    packed (ready; from the start of backward, moved by the mode's backward median). The
    panel's title gives the sync phase's packing.

    `cases` is load_cases' frame; the bucket series carry the fields bucket and quantity."""
    if cases.empty or not {"bucket", "quantity", "model", "precision", "mode"} <= set(cases):
        return []
    steps = cases[cases["family"] == "step"]
    ledger = steps[steps["bucket"].notna() &
                   steps["quantity"].isin(field_values(cases, "step", "quantity"))]
    figures = []
    for (model, precision), workload in ledger.groupby(["model", "precision"], sort=False):
        modes = in_order(workload["mode"], "step", "mode", cases)
        buckets = workload["bucket"].nunique()
        figure, axes = plt.subplots(1, len(modes), figsize=(6.0 * len(modes), 1.8 + 0.3 * buckets),
                                    sharey=True, squeeze=False)
        mine = steps[(steps["model"] == model) & (steps["precision"] == precision)]
        drew = [workload]
        for panel, mode in zip(axes[0], modes):
            rows = workload[workload["mode"] == mode]
            table = rows.pivot_table(index="bucket", columns="quantity", values="median_s",
                                     aggfunc="first") * 1e3
            sizes = rows.groupby("bucket")["bucket_bytes"].first() if "bucket_bytes" in rows \
                else None
            positions = np.arange(len(table.index))
            finish = table.get("finish after backward")
            if finish is not None:
                comm = table.get("comm", pd.Series(0.0, index=table.index)).fillna(0.0)
                delay = table.get("launch delay", pd.Series(0.0, index=table.index)).fillna(0.0)
                panel.barh(positions, comm, left=finish - comm, height=0.6, color="#e6550d",
                           label="comm")
                panel.barh(positions, delay, left=finish - comm - delay, height=0.6,
                           color="#bdbdbd", label="launch delay")
            backward = mine[(mine["mode"] == mode) & (mine["series"] == "backward")]["median_s"]
            if "ready" in table and not backward.empty:
                panel.scatter(table["ready"] - backward.iloc[0] * 1e3, positions, marker="|",
                              s=120, color="black", label="ready (last gradient packed)")
            panel.axvline(0, color="#55a868", linewidth=1, label="end of backward")
            packing = mine[(mine["mode"] == mode) & (mine["series"] == "packing")]
            drew.append(packing)
            title = mode + (f": packing {packing['median_s'].iloc[0] * 1e3:.3g} ms"
                            if not packing.empty else "")
            panel.set_title(title, fontsize=10)
            labels = [f"bucket {int(b)}" + (f" ({sizes[b] / 2 ** 20:.1f} MiB)"
                                            if sizes is not None and not pd.isna(sizes[b]) else "")
                      for b in table.index]
            panel.set_yticks(positions, labels, fontsize=7)
            panel.set_xlabel("ms from the end of backward (median over ranks)")
            panel.grid(True, axis="x", alpha=0.3)
        axes[0][0].invert_yaxis()
        handles, labels = axes[0][0].get_legend_handles_labels()
        figure.legend(handles, labels, loc="lower center", ncol=len(handles), fontsize=8,
                      frameon=False)
        figure.suptitle(f"{model} {precision}: the gradient buckets' collectives against the end "
                        "of backward", fontsize=11)
        figure.set_layout_engine("tight", rect=(0, 0.06, 1, 1))
        figures.append(Plot(f"step-buckets-{_slug(model)}-{_slug(precision)}", figure,
                            _keys(pd.concat(drew))))
    return figures
