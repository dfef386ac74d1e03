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
  sampling         for a run with a sweep budget (--sweep-time): per case, the seconds its
                   slowest rank sampled, coloured by the rule that stopped it, beside the
                   budget's even share, and below it how far the median's 95% interval
                   reaches (the console's ±ci) against --ci-target
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
import os
import sys

import pandas as pd

from .cli import option_type
from .collective_facts import NODE_BUSBW, judged_by
from .nccl_tests import read_reference
# Every figure is here, the two the command does not draw too: one import for a notebook and
# the report page (plot.scaling_rows).
from .plots.buckets import bucket_ledger_figures
from .plots.collectives import (busbw_figures, busbw_together_figure, latency_figures,
                                time_figures, time_together_figures)
from .plots.groups import group_figures
from .plots.launches import launches_figure  # noqa: F401
from .plots.matmul import matmul_figure, parse_peaks
from .plots.membw import membw_figure
from .plots.parity import parity_figure, read_parity
from .plots.sampling import sampling_figures
from .plots.scaling import scaling_figure, scaling_rows  # noqa: F401
from .plots.step import step_breakdown_figures
from .plots.telemetry import telemetry_figures
from .plots.verdict import verdict_expectations
from .results import load_cases, load_ranks, load_telemetry, read_results
from .schema import BadInput, ResultsError, catalogue

import matplotlib.pyplot as plt  # after .plots, which picks the backend

FORMATS = ("png", "svg", "pdf")


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
    figures += busbw_figures(cases, ranks, reference, order, expected,
                             judged_by(document, NODE_BUSBW))
    figures += latency_figures(cases, ranks, order)
    figures += (time_figures if time_apart else time_together_figures)(cases, ranks, order)
    figures += group_figures(cases, ranks, order)
    figures += [plot for plot in (matmul_figure(cases, peaks, expected),
                                  membw_figure(cases, expected)) if plot]
    figures += sampling_figures(document)
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
