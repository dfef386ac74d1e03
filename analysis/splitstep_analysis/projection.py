"""A run's projection to more ranks checked against runs at those rank counts.

    splitstep-analysis projection SOURCE.json MEASURED.json...
    splitstep-analysis projection out/step-np2.json out/step-np4.json out/allreduce-np4.json

SOURCE holds the projection (docs/metrics.md, "Projection"): for every rank count N of a
MEASURED file, each projected collective time (collective/projection/<key>/N=<N>/time, at the
largest size SOURCE measured) is set beside the measured median of the same collective, backend,
dtype, placement and size, and each projected step time (step/projection/N=<N>/T_seq, /T_ddp)
beside the measured T_seq and T_ddp of the same workload. Prints projected / measured; exit
status 2 when nothing could be compared.
"""
import re

import pandas as pd

from .results import load_cases, load_derived, read_results
from .scaling import world_size
from .schema import PLACEMENT_WORDS, BadInput

COLLECTIVE = re.compile(r"collective/projection/([^/]+)/([^/]+)/([^/]+)/(out|in)/N=(\d+)/time")
STEP = re.compile(r"step/projection/N=(\d+)/(T_seq|T_ddp)")
MEASURED_STEP = {"T_seq": "step/time/sequential", "T_ddp": "step/time/overlap"}


def _matching(cases, key):
    if cases.empty or "backend" not in cases:
        return cases.iloc[0:0]
    chosen = cases[cases["family"] == "collective"]
    for column, value in key.items():
        chosen = chosen[chosen[column] == value]
    return chosen


def collective_rows(source_cases, projected, measured_cases, ranks):
    rows = []
    for figure in projected.itertuples():
        match = COLLECTIVE.fullmatch(figure.tag)
        if not match or int(match.group(5)) != ranks:
            continue
        collective, backend, dtype, placement = match.group(1, 2, 3, 4)
        key = {"collective": collective, "backend": backend, "dtype": dtype,
               "placement": placement}
        swept = _matching(source_cases, key)
        if swept.empty:
            continue
        size = swept["bytes"].max()
        at = _matching(measured_cases, key)
        at = at[at["bytes"] == size]
        if at.empty:
            continue
        rows.append({"what": f"{collective} {backend} {dtype} {PLACEMENT_WORDS[placement]} "
                             f"{int(size)} B",
                     "ranks": ranks, "projected": figure.value,
                     "measured": at["median_s"].iloc[0]})
    return rows


def step_rows(projected, measured_derived, ranks):
    rows = []
    for figure in projected.itertuples():
        match = STEP.fullmatch(figure.tag)
        if not match or int(match.group(1)) != ranks or measured_derived.empty:
            continue
        at = measured_derived[(measured_derived["tag"] == MEASURED_STEP[match.group(2)])
                              & (measured_derived["subject"] == figure.subject)]
        if at.empty:
            continue
        rows.append({"what": f"step {figure.subject} {match.group(2)}", "ranks": ranks,
                     "projected": figure.value, "measured": at["value"].iloc[0]})
    return rows


def add_arguments(parser):
    parser.add_argument("source", help="the results file whose projection is checked")
    parser.add_argument("measured", nargs="+", help="results files at other rank counts")


def run(args):
    source = read_results(args.source)
    projected = load_derived(source)
    if projected.empty:
        raise BadInput(f"{args.source}: no derived figures")
    source_cases = load_cases(source)
    rows = []
    for path in args.measured:
        document = read_results(path)
        ranks = world_size(document, path)
        rows += collective_rows(source_cases, projected, load_cases(document), ranks)
        rows += step_rows(projected, load_derived(document), ranks)
    if not rows:
        raise BadInput("nothing to compare: no projection in the source at a measured rank count")
    table = pd.DataFrame(rows)
    table["ratio"] = table["projected"] / table["measured"]
    with pd.option_context("display.width", 200, "display.max_rows", 1000):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.6g}"))
    return 0
