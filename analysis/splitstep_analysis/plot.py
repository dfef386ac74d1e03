"""Plots of splitstep results files, for whatever they hold.

  step breakdown   per model and precision: one panel per sync mode, per rank a stacked bar of
                   the phase medians (data, forward, loss, backward, sync, optimizer), the step's
                   own median as a marker and the gradient collectives' time (comm) beside it
  bucket ledger    per model and precision: one panel per synchronised mode, each gradient
                   bucket's launch delay and collective against the end of backward, when it
                   was ready, and the sync phase's packing
  busbw            per collective the file holds (its catalogue's order, then any other by its
                   name): bus bandwidth against message size (log x), one line per backend, dtype
                   and placement, as nccl-tests' plots show it, each point where NCCL's
                   algorithm/protocol changes labelled with it, and the allreduce busbw the
                   verdict expected where the file has one; with --busbw-together also every
                   collective of every file in one figure, busbw.<format>
  latency          per collective with a busbw: median time (us) against size on log axes, the
                   same lines, as nccl-tests' time column: flat where a size is latency-bound,
                   rising with it where bandwidth-bound
  time             per collective without a busbw (one rank): median time against size
                   (the report page draws them all in one figure, time-collectives)
  pairs / groups   per collective, backend, dtype and placement run within groups of ranks
                   (--groups): for pairs a heatmap of each pair's busbw, rank against rank, for
                   other groups a bar per group; one panel per size
  matmul           TFLOP/s per dtype and shape, with the best measured rate of each dtype, the
                   verdict's expected figure where the file has one and, given --peak, the
                   datasheet figure; a log axis where the rates span 20x or more
  membw            GB/s per kind of copy and size, with the verdict's expected figure over the
                   case it judged; a log axis where the rates span 20x or more
  telemetry        per model and precision: each phase's mean SM clock, power and the power
                   cap's share of the telemetry readings, one bar per sync mode, on axes from
                   zero with the maximum clock and the power limit drawn
  parity           with --parity (tests/reference/parity.py's CSV): per model, shape and mode,
                   each phase's median beside the library model's in PyTorch eager, and the
                   ratio
  scaling          the weak-scaling efficiency T_1 / T_N against the number of GPUs, a line
                   per workload, from the step's derived figures (tags step/time/single,
                   step/time/overlap or step/time/sequential, step/efficiency/<mode>) over all
                   files given; a one-rank run apart, as no scaling point

A folder stands for the results files directly in it (other JSON files there are skipped with a
note). Each figure is written to OUTDIR as <file stem>-<plot>.<format> (the scaling figure as
scaling.<format>); the paths are printed. A measured case that no figure draws (a step series
that neither the breakdown nor the ledger shows, a family without a figure) is named on stderr,
and the exit status is 1.
"""
import math
import os
import re
import sys
from typing import NamedTuple

import matplotlib

if "ipykernel" not in sys.modules:  # headless, except in a notebook that shows the figures
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .cli import option_type  # noqa: E402
from .nccl_tests import read_reference  # noqa: E402
from .results import (load_cases, load_derived, load_ranks, load_telemetry,  # noqa: E402
                      read_results)
from .schema import PLACEMENT_WORDS, BadInput, ResultsError, catalogue  # noqa: E402

# Each figure's tight layout is set as its layout engine, which runs when the figure is drawn,
# rather than computed at once: the layout measures every label's text, half the cost of a
# figure, and a figure that is only built and counted (not_drawn, the committed-results test)
# is never drawn.

PHASES = ("data", "forward", "loss", "backward", "sync", "optimizer")
MODES = ("none", "sequential", "overlap", "single")
DTYPES = ("fp32", "tf32", "fp16", "bf16")
FORMATS = ("png", "svg", "pdf")
# A GPU rank's detail series of kernel time per phase and per step (docs/step.md).
BUSY_PREFIX = "gpu busy "
BUSY = tuple(BUSY_PREFIX + phase for phase in PHASES + ("step",))
PHASE_COLORS = dict(zip(PHASES, ("#8c8c8c", "#4c72b0", "#dd8452", "#55a868", "#c44e52",
                                 "#8172b3")))


class Plot(NamedTuple):
    """A figure, the name its file takes, and the (suite, case, series) of the cases it draws."""
    name: str
    figure: object
    drew: frozenset


def _keys(frame):
    """The (suite, case, series) of a frame's rows."""
    if frame.empty:
        return frozenset()
    return frozenset(zip(frame["suite"], frame["case"], frame["series"]))


def _slug(text):
    return re.sub(r"[^A-Za-z0-9.]+", "-", str(text)).strip("-").lower()


def size_label(size):
    """8 -> '8 B', 65536 -> '64 KiB', as splitstep names sizes."""
    size = int(size)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


# A bar chart whose values span this factor or more gets a log axis: on a linear one the small
# bars (a 55 GB/s host copy beside a 4,000 GB/s HBM copy) are too short to see.
LOG_SPAN = 20.0


def spans_orders(values):
    """True where the positive finite `values` span LOG_SPAN or more (max / min)."""
    values = [float(v) for v in values if not pd.isna(v) and float(v) > 0 and
              math.isfinite(float(v))]
    return len(values) > 1 and max(values) / min(values) >= LOG_SPAN


class Expected(NamedTuple):
    """A figure the run's verdict judged a measurement against (docs/verdict.md): its item
    ("gemm-bf16", "hbm-triad", "allreduce-busbw"), unit, the expected value, the case it judged
    ("bf16 n=4096"; "" where the file does not name one) and the figure's source."""
    item: str
    unit: str
    value: float
    case: str
    source: str


def verdict_expectations(document):
    """[Expected] of the document's derived results of suite "verdict", each item once (every
    node of a run has the same GPU's reference figures); [] without a verdict.

    Each item has the figures verdict/<item>/measured, named "<label> (<case>)", and
    verdict/<item>/expected, whose note is its source."""
    expected, judged = {}, {}
    for derived in document.get("derived", []):
        if derived.get("suite") != "verdict":
            continue
        for figure in derived.get("figures", []):
            parts = str(figure.get("tag", "")).split("/")
            if len(parts) != 3:
                continue
            _, item, kind = parts
            if kind == "expected" and item not in expected:
                expected[item] = figure
            elif kind == "measured" and item not in judged:
                named = re.search(r"\(([^()]*)\)$", str(figure.get("name", "")))
                judged[item] = named.group(1) if named else ""
    return [Expected(item, str(figure.get("unit", "")), float(figure["value"]),
                     judged.get(item, ""), str(figure.get("note", "")))
            for item, figure in expected.items()
            if isinstance(figure.get("value"), (int, float))]


# --- step breakdown -------------------------------------------------------------------------

def step_breakdown_figures(ranks):
    """[Plot]: per model and precision, the phase medians per mode and rank.

    `ranks` is load_ranks' frame (one row per case, series and rank)."""
    if ranks.empty:
        return []
    steps = ranks[ranks["family"] == "step"].copy()
    if steps.empty:
        return []
    for column in ("model", "precision", "mode"):
        if column not in steps:
            steps[column] = None
    # Cases are named "<model> <precision> <mode>"; fields say the same where present.
    named = steps["case"].str.rsplit(" ", n=2, expand=True).reindex(columns=[0, 1, 2])
    steps["model"] = steps["model"].fillna(named[0])
    steps["precision"] = steps["precision"].fillna(named[1])
    steps["mode"] = steps["mode"].fillna(named[2])
    figures = []
    for (model, precision), workload in steps.groupby(["model", "precision"], sort=False):
        modes = [m for m in MODES if m in set(workload["mode"])] + \
            sorted(set(workload["mode"]) - set(MODES))
        ranks_count = max(workload.groupby("mode")["rank"].nunique())
        width = max(7.0, 1.2 + len(modes) * max(2.2, 0.6 + 0.55 * ranks_count))
        figure, axes = plt.subplots(1, len(modes), figsize=(width, 4.8), sharey=True,
                                    squeeze=False)
        handles = {}
        drawn = workload[workload["series"].isin(PHASES + ("comm", "step") + BUSY)]
        for panel, mode in zip(axes[0], modes):
            table = workload[workload["mode"] == mode].pivot_table(
                index="rank", columns="series", values="median_s", aggfunc="first") * 1e3
            positions = np.arange(len(table.index))
            bottom = np.zeros(len(positions))
            for phase in PHASES:
                if phase not in table:
                    continue
                values = table[phase].fillna(0.0).to_numpy()
                handles[phase] = panel.bar(positions, values, 0.6, bottom=bottom,
                                           color=PHASE_COLORS[phase], label=phase)
                bottom += values
            # The GPU's kernel time inside each phase, beside the phase's wall time: where the
            # narrow bar is shorter than the wide one, the GPU waited for the host.
            busy_bottom = np.zeros(len(positions))
            for phase in PHASES:
                if BUSY_PREFIX + phase not in table:
                    continue
                values = table[BUSY_PREFIX + phase].fillna(0.0).to_numpy()
                handles["busy"] = panel.bar(positions - 0.38, values, 0.14, bottom=busy_bottom,
                                            color=PHASE_COLORS[phase], edgecolor="black",
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


# --- bucket ledger --------------------------------------------------------------------------

LEDGER = ("ready", "launch delay", "comm", "finish after backward")


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
    ledger = steps[steps["bucket"].notna() & steps["quantity"].isin(LEDGER)]
    figures = []
    for (model, precision), workload in ledger.groupby(["model", "precision"], sort=False):
        modes = [m for m in MODES if m in set(workload["mode"])] + \
            sorted(set(workload["mode"]) - set(MODES))
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


# --- telemetry by phase ---------------------------------------------------------------------

TELEMETRY_SERIES = PHASES + ("comm", "step")
MODE_COLORS = dict(zip(MODES, ("#8c8c8c", "#4c72b0", "#c44e52", "#55a868")))


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
    figures = []
    for (model, precision), workload in steps.groupby(["model", "precision"], sort=False):
        series = [p for p in TELEMETRY_SERIES if p in set(workload["series"])]
        modes = [m for m in MODES if m in set(workload["mode"])]
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
                          width, color=MODE_COLORS.get(mode, "#9e9e9e"), label=mode)
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


# --- bus bandwidth --------------------------------------------------------------------------

def collective_frame(cases, with_busbw=True, groups=False):
    """load_cases' rows of collectives that have a bus bandwidth, or (with_busbw False) of those
    that have none (as with one rank, where busbw is not defined): those of all ranks together,
    or with groups True those run within a group of ranks."""
    if cases.empty:
        return cases
    has = cases["busbw GB/s"].notna() if "busbw GB/s" in cases else False
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


def plot_size_lines(axes, frame, label_collective=True, label_file=False, value="busbw GB/s",
                    scale=1.0):
    """One line of `value` (times `scale`) against size per collective, backend, dtype,
    placement and file."""
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


def label_algorithms(axes, frame, value="busbw GB/s"):
    """NCCL's choice (the fields nccl_algorithm and nccl_protocol, where the file has them)
    written above the first point of each line of plot_size_lines and above every point where it
    changes, as "ring/simple": a step in busbw at a change of algorithm is NCCL's choice, one
    without is the link's."""
    if "nccl_algorithm" not in frame or "nccl_protocol" not in frame:
        return
    keys = ["collective", "backend", "dtype", "placement", "file"]
    for _, group in frame.groupby(keys, sort=False):
        group = group.sort_values("size")
        previous = None
        for size, y, algorithm, protocol in zip(group["size"], group[value],
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


def busbw_figures(cases, world_size=None, reference=None, order=(), expected=()):
    """[Plot]: per collective with a bus bandwidth, busbw against size (see _in_order); on
    allreduce's, the busbw the verdict expected (`expected`: verdict_expectations'), dash-dot."""
    frame = collective_frame(cases)
    figures = []
    for collective in _in_order(frame, order):
        rows = frame[frame["collective"] == collective]
        figure, axes = plt.subplots(figsize=(9, 5.5))
        plot_size_lines(axes, rows, label_collective=False)
        label_algorithms(axes, rows)
        if reference is not None:
            plot_reference_lines(axes, reference, collective)
        # The verdict judges allreduce's busbw only (docs/verdict.md): its item says so.
        for judged in expected:
            if collective == "allreduce" and judged.item.startswith("allreduce") and \
                    judged.unit == "GB/s":
                at = f", {judged.case}" if judged.case else ""
                axes.axhline(judged.value, color="black", linestyle="-.", linewidth=1,
                             label=f"expected {judged.value:.0f} GB/s (verdict{at})")
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


def _pair_heatmap(panel, rows, ranks):
    """busbw of each pair of ranks as a symmetric ranks x ranks matrix on `panel`; returns the
    image (the diagonal and the pairs not run are blank)."""
    matrix = np.full((ranks, ranks), np.nan)
    for group, value in zip(rows["group"], rows["busbw GB/s"]):
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
                    panel.barh(np.arange(len(at)), at["busbw GB/s"], color="#4c72b0")
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


# --- matmul ---------------------------------------------------------------------------------

def parse_peaks(text):
    """'bf16=989,fp16=989' -> {'bf16': 989.0, 'fp16': 989.0} (TFLOP/s)."""
    peaks = {}
    for item in filter(None, (part.strip() for part in (text or "").split(","))):
        dtype, _, value = item.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not dtype.strip() or not number > 0 or math.isinf(number):
            raise ValueError(f"'{item}' is not DTYPE=TFLOPS with a positive number")
        peaks[dtype.strip()] = number
    return peaks


def _expected_by(frame, expected, unit, column, fallback):
    """{value of `column` (a dtype, a case): Expected} of the verdict's figures in `unit`: each
    placed at the row of the case it judged, or where the file names no case found in `frame`,
    at fallback(expected) (None: not drawn)."""
    placed = {}
    for figure in expected:
        if figure.unit != unit:
            continue
        judged = frame[frame["case"] == figure.case] if figure.case else frame.iloc[0:0]
        key = judged[column].iloc[0] if not judged.empty else fallback(figure)
        if key is not None and not pd.isna(key):
            placed.setdefault(key, figure)
    return placed


def matmul_figure(cases, peaks=None, expected=()):
    """Plot of GEMM TFLOP/s per dtype and shape against the ceilings, or None.

    The ceilings: each dtype's best measured rate (dashed), the verdict's expected figure
    (`expected`: verdict_expectations'; dash-dot) and, from --peak, the datasheet figure
    (dotted). Each bar says its rate and its share of the datasheet figure, else of the
    expected one; without either no share (of the best measured, the best bar would say 100%
    and nothing else). A log axis where the rates span LOG_SPAN or more."""
    if cases.empty:
        return None
    frame = cases[cases["family"] == "matmul"].copy()
    if frame.empty or not {"m", "n", "k"} <= set(frame.columns):
        return None
    peaks = peaks or {}
    frame = frame.astype({"m": float, "n": float, "k": float})
    flop = 2.0 * frame["m"] * frame["n"] * frame["k"]
    frame["tflops"] = flop / frame["median_s"] / 1e12
    frame["low"] = flop / frame["max_s"] / 1e12   # at the slowest rank's median
    frame["high"] = flop / frame["min_s"] / 1e12  # at the fastest rank's median
    frame["shape"] = [f"n={int(m)}" if m == n == k else f"{int(m)}x{int(n)}x{int(k)}"
                      for m, n, k in zip(frame["m"], frame["n"], frame["k"])]
    frame["work"] = flop
    shapes = list(frame.sort_values("work").drop_duplicates("shape")["shape"])
    dtypes = [d for d in DTYPES if d in set(frame["dtype"])] + \
        sorted(set(frame["dtype"]) - set(DTYPES))
    # An item names its dtype last ("gemm-bf16"), where its case is not among the bars.
    by_dtype = _expected_by(frame, expected, "TFLOP/s", "dtype",
                            lambda e: e.item.rsplit("-", 1)[-1] if e.item.rsplit("-", 1)[-1]
                            in dtypes else None)
    colors = dict(zip(dtypes, plt.rcParams["axes.prop_cycle"].by_key()["color"] * 3))
    width = min(0.8 / len(dtypes), 0.3)
    figure, axes = plt.subplots(figsize=(max(8.0, 4.0 + 0.9 * len(shapes) * len(dtypes)), 5.5))
    for index, dtype in enumerate(dtypes):
        rows = frame[frame["dtype"] == dtype].set_index("shape").reindex(shapes)
        rates = rows["tflops"].to_numpy(dtype=float)
        positions = np.arange(len(shapes)) + (index - (len(dtypes) - 1) / 2) * width
        errors = np.nan_to_num(np.vstack((rates - rows["low"].to_numpy(dtype=float),
                                          rows["high"].to_numpy(dtype=float) - rates))).clip(0)
        axes.bar(positions, rates, width * 0.9, yerr=errors, capsize=3, color=colors[dtype],
                 label=dtype)
        best = float(np.nanmax(rates))
        ceiling = peaks.get(dtype) or (by_dtype[dtype].value if dtype in by_dtype else None)
        for x, value in zip(positions, rates):
            if not math.isnan(value):
                share = f"\n{value / ceiling:.0%}" if ceiling else ""
                axes.annotate(f"{value:.0f}{share}", (x, value), textcoords="offset points",
                              xytext=(0, 4), ha="center", fontsize=7)
        axes.axhline(best, color=colors[dtype], linestyle="--", linewidth=1,
                     label=f"{dtype} best measured {best:.0f}")
        if dtype in by_dtype:
            axes.axhline(by_dtype[dtype].value, color=colors[dtype], linestyle="-.",
                         linewidth=1.5,
                         label=f"{dtype} expected {by_dtype[dtype].value:.0f} (verdict)")
        if dtype in peaks:
            axes.axhline(peaks[dtype], color=colors[dtype], linestyle=":", linewidth=1.5,
                         label=f"{dtype} datasheet {peaks[dtype]:g}")
    axes.set_xticks(np.arange(len(shapes)), shapes)
    axes.set_xlim(-0.7, len(shapes) - 0.3)
    axes.set_xlabel("shape (m x n x k)")
    axes.set_ylabel("TFLOP/s (2mnk / median time)")
    top = max([frame["high"].max()] + list(peaks.values()) +
              [e.value for e in by_dtype.values()])
    if spans_orders(frame["tflops"]):
        axes.set_yscale("log")
        axes.set_ylim(frame["low"].min() / 2, top * 2.5)  # room for the labels above the bars
    else:
        axes.set_ylim(0, top * 1.15)
    what = "; % of the dtype's " + ("datasheet figure" if peaks else "expected figure") \
        if peaks or by_dtype else ""
    axes.set_title(f"GEMM TFLOP/s per dtype and shape\nbars: median over ranks; whiskers: "
                   f"fastest and slowest rank{what}", fontsize=9)
    axes.grid(True, axis="y", alpha=0.3)
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.set_layout_engine("tight")
    return Plot("matmul-tflops", figure, _keys(frame))


def membw_figure(cases, expected=()):
    """Plot of memory bandwidth (GB/s) per kind of copy and size, or None: a log axis where the
    rates span LOG_SPAN or more, and the verdict's expected figure (`expected`:
    verdict_expectations') as a black dash over the bar of the case it judged."""
    if cases.empty or "GB/s" not in cases:
        return None
    frame = cases[(cases["family"] == "membw") & cases["GB/s"].notna()]
    if frame.empty or "bytes" not in frame:
        return None
    sizes = sorted(set(frame["bytes"]))
    kinds = list(dict.fromkeys(frame["kind"])) if "kind" in frame else [""]
    # Only at the case it judged: an HBM figure drawn across the host copies would mislead.
    by_case = _expected_by(frame, [e for e in expected if not e.item.startswith("allreduce")],
                           "GB/s", "case", lambda e: None)
    width = 0.8 / len(kinds)
    figure, axes = plt.subplots(figsize=(max(7.0, 2.0 + 1.2 * len(sizes) * len(kinds)), 5))
    for index, kind in enumerate(kinds):
        rows = frame[frame["kind"] == kind] if kind else frame
        rates = rows.groupby("bytes")["GB/s"].median().reindex(sizes)
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
    log = spans_orders(frame["GB/s"])
    axes.set_ylabel("GB/s (1 GB = 1e9 B), median over ranks" + (", log axis" if log else ""))
    if log:
        axes.set_yscale("log")
        axes.set_ylim(frame["GB/s"].min() / 2, frame["GB/s"].max() * 2)
    axes.set_title("memory bandwidth per kind")
    axes.grid(True, axis="y", alpha=0.3)
    if kinds != [""] or by_case:
        handles, labels = axes.get_legend_handles_labels()
        shown = dict(zip(labels, handles))  # the expected dashes, once
        axes.legend(shown.values(), shown.keys(), fontsize=8)
    figure.set_layout_engine("tight")
    return Plot("membw", figure, _keys(frame))


# --- scaling --------------------------------------------------------------------------------

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


# --- parity with the library's model ---------------------------------------------------------

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


# --- the command ----------------------------------------------------------------------------

def figures_for(document, peaks=None, reference=None, time_apart=False):
    """[Plot] of every per-file figure the document (from read_results) has cases for, the
    verdict's expected figures drawn on the figures of what it judged.

    The collectives of a one-rank run share one time figure (time-collectives), as the report
    page shows them; with time_apart each has its own (time-<collective>), as `plot` writes a
    file per collective."""
    cases = load_cases(document)
    expected = verdict_expectations(document)
    figures = step_breakdown_figures(load_ranks(document))
    figures += bucket_ledger_figures(cases)
    figures += telemetry_figures(load_telemetry(document))
    ranks, order = document["metadata"].get("world_size"), catalogue(document)["collectives"]
    figures += busbw_figures(cases, ranks, reference, order, expected)
    figures += latency_figures(cases, ranks, order)
    figures += (time_figures if time_apart else time_together_figures)(cases, ranks, order)
    figures += group_figures(cases, ranks, order)
    figures += [plot for plot in (matmul_figure(cases, peaks, expected),
                                  membw_figure(cases, expected)) if plot]
    return figures


def not_drawn(document, figures):
    """{suite: [case / series, ...]}: the measured cases of `document` no figure draws."""
    drew = frozenset().union(*(plot.drew for plot in figures))
    missing = {}
    for case in document["cases"]:
        key = (case["suite"], case["case"], case["series"])
        if not case.get("skipped", False) and key not in drew:
            missing.setdefault(case["suite"], []).append(f"{case['case']} / {case['series']}")
    return missing


def save(figure, outdir, name, formats):
    paths = []
    for extension in formats:
        path = os.path.join(outdir, f"{name}.{extension}")
        figure.savefig(path, dpi=120)
        paths.append(path)
    plt.close(figure)
    return paths


def inputs(paths):
    """(path, document) of each file; a folder gives its *.json files, skipping (with a note on
    stderr) those that are not results files. Raises ResultsError for a named file."""
    documents = []
    for given in paths:
        if os.path.isdir(given):
            for name in sorted(os.listdir(given)):
                path = os.path.join(given, name)
                if not name.endswith(".json") or not os.path.isfile(path):
                    continue
                try:
                    documents.append((path, read_results(path)))
                except ResultsError as error:
                    sys.stderr.write(f"splitstep-analysis plot: skipping {error}\n")
        else:
            documents.append((given, read_results(given)))
    return documents


def parse_formats(text):
    """'png,svg' -> ['png', 'svg']."""
    formats = [f.strip().lower() for f in text.split(",") if f.strip()]
    if not formats or any(f not in FORMATS for f in formats):
        raise ValueError(f"'{text}': formats are {', '.join(FORMATS)}")
    return formats


def add_arguments(parser):
    parser.add_argument("results", nargs="+", help="results files (schema v1 or v2) or folders "
                                                   "of them")
    parser.add_argument("-o", "--output", required=True, metavar="OUTDIR",
                        help="folder for the figures (made if missing)")
    parser.add_argument("--format", type=option_type(parse_formats), default=["png"],
                        help="comma-separated: png, svg, pdf (default png)")
    parser.add_argument("--peak", type=option_type(parse_peaks), default={},
                        help="datasheet TFLOP/s per dtype, e.g. bf16=989,fp16=989,tf32=494")
    parser.add_argument("--reference", help="nccl-tests busbw CSV "
                        "(collective,size_bytes,time_us,busbw_gbps,label) to draw beside busbw")
    parser.add_argument("--parity", metavar="CSV",
                        help="tests/reference/parity.py's --csv output: draw splitstep's phases "
                             "beside the library's model, OUTDIR/parity.<format>")
    parser.add_argument("--busbw-together", action="store_true",
                        help="also draw every collective of every file in one figure, "
                             "OUTDIR/busbw.<format>")
    parser.add_argument("--title", default="Bus bandwidth",
                        help="the title of the --busbw-together figure")


def run(args):
    documents = inputs(args.results)
    reference = read_reference(args.reference) if args.reference else None
    parity = parity_figure(read_parity(args.parity)) if args.parity else None
    together = None
    if args.busbw_together:
        together = busbw_together_figure(
            pd.concat([load_cases(d) for _, d in documents], ignore_index=True), args.title,
            reference)
        if together is None:
            raise BadInput("--busbw-together: no collective case with a bus bandwidth in the "
                           "files")
    os.makedirs(args.output, exist_ok=True)
    written, incomplete = [], False
    for path, document in documents:
        stem = os.path.splitext(os.path.basename(path))[0]
        figures = figures_for(document, args.peak, reference, time_apart=True)
        if not figures:
            print(f"{path}: no case to plot")
        for suite, cases in not_drawn(document, figures).items():
            incomplete = True
            shown = ", ".join(cases[:4]) + (f" and {len(cases) - 4} more" if len(cases) > 4 else "")
            sys.stderr.write(f"splitstep-analysis plot: {path}: {len(cases)} {suite} "
                             f"case{'s' if len(cases) > 1 else ''} not plotted: {shown}\n")
        for name, figure, _ in figures:
            written += save(figure, args.output, f"{stem}-{name}", args.format)
    for plot in (scaling_figure(documents), together, parity):
        if plot:
            written += save(plot.figure, args.output, plot.name, args.format)
    for path in written:
        print(path)
    return 1 if incomplete else 0
