"""GEMM TFLOP/s per dtype and shape against the ceilings: best measured, expected, datasheet."""
import math

import matplotlib.pyplot as plt
import numpy as np

from ..rates import TFLOPS, rate_unit
from ..vocabulary import in_order
from .common import Plot, _keys, spans_orders
from .verdict import _expected_by


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
    dtypes = in_order(frame["dtype"], "matmul", "dtype", frame)
    # At its dtype's bars where its case is not among them.
    by_dtype = _expected_by(frame, [e for e in expected if e.family == "matmul"],
                            rate_unit(frame, TFLOPS), "dtype",
                            lambda e: e.dtype if e.dtype in dtypes else None)
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
