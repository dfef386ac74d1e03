"""Plots of splitstep results, for whatever the files hold.

  step breakdown   per model and precision: one panel per sync mode, per rank a stacked bar of
                   the phase medians (data, forward, loss, backward, sync, optimizer), the step's
                   own median as a marker and the gradient collectives' time (comm) beside it
  busbw            per collective: bus bandwidth against message size (log x), one line per
                   backend, dtype and placement, as nccl-tests' plots show it
  matmul           TFLOP/s per dtype and shape, with the best measured rate of each dtype and,
                   given --peak, the datasheet figure
  telemetry        per model and precision: each phase's mean SM clock, power and the power
                   cap's share of the telemetry readings, one bar per sync mode
  scaling          per model: T_1, T_N and the weak-scaling efficiency T_1 / T_N, from the
                   step's derived figures (tags step/time/single, step/time/overlap or
                   step/time/sequential, step/efficiency/<mode>), over all files given

A folder stands for the results files directly in it. Each figure is written to OUTDIR as
<file stem>-<plot>.<format> (the scaling figure as scaling.<format>); the paths are printed.
Exit status 2 for a malformed file or bad options; a file without any of these cases gives no
figure and no error.
"""
import argparse
import math
import os
import re
import sys

import matplotlib

if "ipykernel" not in sys.modules:  # headless, except in a notebook that shows the figures
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from splitstep_results import (ResultsError, load_cases, load_derived, load_ranks,  # noqa: E402
                               load_telemetry, read_results)

COLLECTIVES = ("allreduce", "reduce_scatter", "allgather", "broadcast")
PHASES = ("data", "forward", "loss", "backward", "sync", "optimizer")
MODES = ("none", "sequential", "overlap", "single")
DTYPES = ("fp32", "tf32", "fp16", "bf16")
FORMATS = ("png", "svg", "pdf")
PHASE_COLORS = dict(zip(PHASES, ("#8c8c8c", "#4c72b0", "#dd8452", "#55a868", "#c44e52",
                                 "#8172b3")))


def _slug(text):
    return re.sub(r"[^A-Za-z0-9.]+", "-", str(text)).strip("-").lower()


def size_label(size):
    """8 -> '8 B', 65536 -> '64 KiB', as splitstep names sizes."""
    size = int(size)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


# --- step breakdown -------------------------------------------------------------------------

def step_breakdown_figures(ranks):
    """[(name, Figure)]: per model and precision, the phase medians per mode and rank.

    `ranks` is load_ranks' frame (one row per case, series and rank)."""
    if ranks.empty or "suite" not in ranks:
        return []
    steps = ranks[ranks["suite"] == "step"].copy()
    if steps.empty:
        return []
    for column in ("model", "precision", "mode"):
        if column not in steps:
            steps[column] = None
    # Cases are named "<model> <precision> <mode>"; params say the same where present.
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
            panel.set_xlim(-0.6, len(positions) - 0.25)
            panel.grid(True, axis="y", alpha=0.3)
        axes[0][0].set_ylabel("per-rank median (ms)")
        figure.suptitle(f"{model} {precision}: where the step time goes (phase medians per rank)",
                        fontsize=11)
        figure.legend(handles=list(handles.values()), loc="lower center",
                      ncol=min(len(handles), 4), fontsize=8, frameon=False)
        figure.tight_layout(rect=(0, 0.1, 1, 1))
        figures.append((f"step-{_slug(model)}-{_slug(precision)}", figure))
    return figures


# --- telemetry by phase ---------------------------------------------------------------------

TELEMETRY_SERIES = PHASES + ("comm", "step")
MODE_COLORS = dict(zip(MODES, ("#8c8c8c", "#4c72b0", "#c44e52", "#55a868")))


def telemetry_figures(telemetry):
    """[(name, Figure)]: per model and precision, each phase's mean SM clock, power and the
    power cap's share of the readings, one bar per sync mode (averaged over ranks).

    `telemetry` is load_telemetry's frame."""
    if telemetry.empty or "sm_clock_mhz_mean" not in telemetry:
        return []
    steps = telemetry[telemetry["suite"] == "step"]
    if steps.empty or not {"model", "precision", "mode"} <= set(steps):
        return []
    power = next((c for c in ("power_w_mean", "power_avg_w_mean") if c in steps), None)
    panels = [("sm_clock_mhz_mean", "SM clock (MHz)")]
    if power:
        panels.append((power, "power (W)" if power == "power_w_mean" else "power, 1 s avg (W)"))
    panels.append(("limit power cap", "power cap (% of readings)"))
    figures = []
    for (model, precision), workload in steps.groupby(["model", "precision"], sort=False):
        series = [p for p in TELEMETRY_SERIES if p in set(workload["series"])]
        modes = [m for m in MODES if m in set(workload["mode"])]
        figure, axes = plt.subplots(len(panels), 1, figsize=(max(7.0, 1.2 * len(series)), 7.5),
                                    sharex=True, squeeze=False)
        width = 0.8 / max(len(modes), 1)
        for row, (column, label) in enumerate(panels):
            panel = axes[row][0]
            for i, mode in enumerate(modes):
                rows = workload[workload["mode"] == mode]
                values = [rows[rows["series"] == p][column].mean() if column in rows else np.nan
                          for p in series]
                if column == "limit power cap":  # absent: the cap never held
                    values = [0.0 if np.isnan(v) else 100 * v for v in values]
                panel.bar(np.arange(len(series)) + (i - (len(modes) - 1) / 2) * width, values,
                          width, color=MODE_COLORS.get(mode, "#9e9e9e"), label=mode)
            panel.set_ylabel(label, fontsize=9)
            panel.grid(True, axis="y", alpha=0.3)
        low = workload["sm_clock_mhz_mean"].min()
        axes[0][0].set_ylim(max(0.0, 0.9 * low), None)
        axes[-1][0].set_xticks(np.arange(len(series)), series)
        axes[0][0].legend(title="mode", fontsize=8, ncol=len(modes))
        figure.suptitle(f"{model} {precision}: SM clock and power by phase (telemetry, mean over "
                        "ranks)", fontsize=11)
        figure.tight_layout()
        figures.append((f"telemetry-{_slug(model)}-{_slug(precision)}", figure))
    return figures


# --- bus bandwidth --------------------------------------------------------------------------

def collective_frame(cases):
    """load_cases' rows of collectives that have a bus bandwidth (none with one rank)."""
    if cases.empty or "busbw GB/s" not in cases:
        return cases.iloc[0:0]  # no collectives, or one rank, where busbw is not defined
    frame = cases[cases["suite"].isin(COLLECTIVES) & cases["busbw GB/s"].notna()].copy()
    for column in ("backend", "dtype", "placement"):
        if column not in frame:
            frame[column] = ""
        frame[column] = frame[column].fillna("")
    return frame


def plot_busbw_lines(axes, frame, label_suite=True, label_file=False):
    """One line of busbw against size per collective, backend, dtype, placement and file."""
    keys = ["suite", "backend", "dtype", "placement", "file"]
    colors = {}
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for (suite, backend, dtype, placement, path), group in frame.groupby(keys, sort=False):
        label = " ".join(part for part in ("splitstep", suite if label_suite else "", backend,
                                           dtype, placement) if part)
        if label_file:
            label += f" ({os.path.basename(str(path))})"
        # One colour per line but placement, which often coincides: in place drawn dotted.
        color = colors.setdefault((suite, backend, dtype, path), cycle[len(colors) % len(cycle)])
        in_place = placement == "in place"
        group = group.sort_values("size")
        axes.plot(group["size"], group["busbw GB/s"], color=color, label=label,
                  marker="s" if in_place else "o", markerfacecolor="none" if in_place else color,
                  linestyle=":" if in_place else "-")


def plot_reference_lines(axes, reference, collective=None):
    """nccl-tests figures from a CSV (collective,size_bytes,time_us,busbw_gbps,label)."""
    if collective is not None:
        reference = reference[reference["collective"] == collective]
    for (name, label), group in reference.groupby(["collective", "label"]):
        axes.plot(group["size_bytes"], group["busbw_gbps"], linestyle="--", marker="x",
                  color="black", label=f"{label} {name} (reference)")


def finish_busbw_axes(axes, title):
    """Log-2 size axis labelled in B/KiB/MiB/GiB, busbw axis, grid and legend."""
    axes.set_xscale("log", base=2)
    low, high = axes.get_xlim()
    ticks = [2 ** e for e in range(int(math.ceil(math.log2(max(low, 1)))),
                                   int(math.log2(high)) + 1)]
    step = max(1, len(ticks) // 12)
    axes.set_xticks(ticks[::step], [size_label(t) for t in ticks[::step]], rotation=45,
                    fontsize=8)
    axes.set_xlabel("message size")
    axes.set_ylabel("busbw (GB/s, 1 GB = 1e9 B)")
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=7)


def busbw_figures(cases, world_size=None, reference=None):
    """[(name, Figure)]: per collective, busbw against size."""
    frame = collective_frame(cases)
    if frame.empty:
        return []
    figures = []
    for suite in [s for s in COLLECTIVES if s in set(frame["suite"])]:
        figure, axes = plt.subplots(figsize=(9, 5.5))
        plot_busbw_lines(axes, frame[frame["suite"] == suite], label_suite=False)
        if reference is not None:
            plot_reference_lines(axes, reference, suite)
        ranks = f", {world_size} ranks" if world_size else ""
        finish_busbw_axes(axes, f"{suite} bus bandwidth{ranks}")
        figure.tight_layout()
        figures.append((f"busbw-{_slug(suite)}", figure))
    return figures


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


def matmul_figure(cases, peaks=None):
    """(name, Figure) of GEMM TFLOP/s per dtype and shape against the ceilings, or None."""
    if cases.empty or "suite" not in cases:
        return None
    frame = cases[cases["suite"] == "matmul"].copy()
    if frame.empty or not {"m", "n", "k"} <= set(frame.columns):
        return None
    peaks = peaks or {}
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
        ceiling = peaks.get(dtype, best)
        for x, value in zip(positions, rates):
            if not math.isnan(value):
                axes.annotate(f"{value:.0f}\n{value / ceiling:.0%}", (x, value),
                              textcoords="offset points", xytext=(0, 4), ha="center",
                              fontsize=7)
        axes.axhline(best, color=colors[dtype], linestyle="--", linewidth=1,
                     label=f"{dtype} best measured {best:.0f}")
        if dtype in peaks:
            axes.axhline(peaks[dtype], color=colors[dtype], linestyle=":", linewidth=1.5,
                         label=f"{dtype} datasheet {peaks[dtype]:g}")
    axes.set_xticks(np.arange(len(shapes)), shapes)
    axes.set_xlim(-0.7, len(shapes) - 0.3)
    axes.set_xlabel("shape (m x n x k)")
    axes.set_ylabel("TFLOP/s (2mnk / median time)")
    axes.set_ylim(0, max([frame["high"].max()] + list(peaks.values())) * 1.15)
    what = "datasheet figure" if peaks else "best measured rate"
    axes.set_title(f"GEMM TFLOP/s per dtype and shape\nbars: median over ranks; whiskers: "
                   f"fastest and slowest rank; % of the dtype's {what}", fontsize=9)
    axes.grid(True, axis="y", alpha=0.3)
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
    return "matmul-tflops", figure


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
    """(name, Figure): efficiency bars per workload and rank count beside the table, or None."""
    rows = scaling_rows(documents)
    if not rows:
        return None
    table = pd.DataFrame(rows).sort_values(["workload", "ranks", "file"], kind="stable")
    several = table.duplicated(["workload", "ranks"], keep=False).any()
    table["label"] = [f"{w}\n{n} rank{'' if n == 1 else 's'}" + (f"\n{f}" if several else "")
                      for w, n, f in zip(table["workload"], table["ranks"], table["file"])]
    figure, (bars, text) = plt.subplots(1, 2, figsize=(12, 1.6 + 0.5 * max(len(table), 3)),
                                        gridspec_kw={"width_ratios": [1, 1.2]})
    positions = np.arange(len(table))
    bars.barh(positions, table["efficiency (%)"], color="#4c72b0")
    for y, value in zip(positions, table["efficiency (%)"]):
        bars.annotate(f"{value:.1f}%", (value, y), xytext=(3, 0), textcoords="offset points",
                      va="center", fontsize=8)
    bars.axvline(100, color="black", linestyle="--", linewidth=1)
    bars.set_yticks(positions, table["label"], fontsize=8)
    bars.invert_yaxis()
    bars.set_xlim(0, max(110, table["efficiency (%)"].max() * 1.12))
    bars.set_xlabel("weak-scaling efficiency T_1 / T_N (%)")
    bars.grid(True, axis="x", alpha=0.3)
    columns = ["workload", "ranks", "mode", "T_1 (ms)", "T_N (ms)", "efficiency (%)"] + \
        (["file"] if several else [])
    cells = [[f"{v:.2f}" if isinstance(v, float) else str(v) for v in row]
             for row in table[columns].itertuples(index=False)]
    text.axis("off")
    drawn = text.table(cellText=cells, colLabels=columns, loc="center", cellLoc="right")
    drawn.auto_set_font_size(False)
    drawn.set_fontsize(8)
    drawn.auto_set_column_width(list(range(len(columns))))
    drawn.scale(1, 1.3)
    figure.suptitle("Training step: one rank (T_1) against N ranks (T_N), same batch per rank",
                    fontsize=11)
    figure.tight_layout()
    return "scaling", figure


# --- the command ----------------------------------------------------------------------------

def figures_for(path, document, peaks=None, reference=None):
    """[(name, Figure)] of every per-file plot the document has cases for."""
    cases = load_cases(document)
    figures = step_breakdown_figures(load_ranks(document))
    figures += telemetry_figures(load_telemetry(document))
    figures += busbw_figures(cases, document["metadata"].get("world_size"), reference)
    matmul = matmul_figure(cases, peaks)
    if matmul:
        figures.append(matmul)
    return figures


def save(figure, outdir, name, formats):
    paths = []
    for extension in formats:
        path = os.path.join(outdir, f"{name}.{extension}")
        figure.savefig(path, dpi=120)
        paths.append(path)
    plt.close(figure)
    return paths


def _inputs(paths):
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
                    sys.stderr.write(f"plots.py: skipping {error}\n")
        else:
            documents.append((given, read_results(given)))
    return documents


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write(f"{self.prog}: {message}\n")
        sys.exit(2)


def _formats(text):
    formats = [f.strip().lower() for f in text.split(",") if f.strip()]
    unknown = [f for f in formats if f not in FORMATS]
    if not formats or unknown:
        raise argparse.ArgumentTypeError(f"'{text}': formats are {', '.join(FORMATS)}")
    return formats


def _peaks(text):
    try:
        return parse_peaks(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def main(argv=None):
    parser = _Parser(prog="plots.py", description=__doc__,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", help="results.json files or folders of them")
    parser.add_argument("-o", "--output", required=True, metavar="OUTDIR",
                        help="folder for the figures (made if missing)")
    parser.add_argument("--format", type=_formats, default=["png"],
                        help="comma-separated: png, svg, pdf (default png)")
    parser.add_argument("--peak", type=_peaks, default={},
                        help="datasheet TFLOP/s per dtype, e.g. bf16=989,fp16=989,tf32=494")
    parser.add_argument("--reference", help="nccl-tests busbw CSV "
                        "(collective,size_bytes,time_us,busbw_gbps,label) to draw beside busbw")
    args = parser.parse_args(argv)

    try:
        documents = _inputs(args.results)
    except ResultsError as error:
        sys.stderr.write(f"plots.py: {error}\n")
        return 2
    reference = None
    if args.reference:
        try:
            reference = pd.read_csv(args.reference, comment="#")
            missing = {"collective", "size_bytes", "busbw_gbps", "label"} - set(reference)
            if missing:
                raise ValueError(f"no column {', '.join(sorted(missing))}")
        except (OSError, ValueError) as error:
            sys.stderr.write(f"plots.py: {args.reference}: {error}\n")
            return 2
    os.makedirs(args.output, exist_ok=True)

    written = []
    for path, document in documents:
        stem = os.path.splitext(os.path.basename(path))[0]
        figures = figures_for(path, document, args.peak, reference)
        if not figures:
            print(f"{path}: no step, collective (with busbw) or matmul cases to plot")
        for name, figure in figures:
            written += save(figure, args.output, f"{stem}-{name}", args.format)
    scaling = scaling_figure(documents)
    if scaling:
        written += save(scaling[1], args.output, scaling[0], args.format)
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
