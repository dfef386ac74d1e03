"""A run's projection to more ranks checked against runs at those rank counts.

    splitstep-analysis projection SOURCE.json MEASURED.json...
    splitstep-analysis projection out/step-np2.json out/step-np4.json out/allreduce-np4.json

SOURCE holds the projection (docs/metrics.md, "Projection"): for every rank count N of a
MEASURED file, each projected collective time (the figures keyed `collective/projection/time`,
at the largest size SOURCE measured) is set beside the measured median of the same collective,
backend, dtype, placement and size, and each projected step time (keyed `step/projection`, by
rank count and mode) beside the measured step time of the same workload and mode
(`step/time`). Figures are selected by their typed keys (results-schema.md), so a file written
before figures had keys has no projection to check. Prints projected / measured; exit status 2
when nothing could be compared.
"""
import pandas as pd

from .results import load_cases, load_derived, read_results
from .scaling import world_size
from .schema import PLACEMENT_WORDS, BadInput

SWEEP_KEY = ["collective", "backend", "dtype", "placement"]


def _figures(derived, figure, **fields):
    """The derived figures keyed `figure` whose key holds each of `fields`."""
    if derived.empty or "figure" not in derived:
        return derived.iloc[0:0]
    chosen = derived[derived["figure"] == figure]
    for name, value in fields.items():
        chosen = chosen[chosen[name] == value]
    return chosen


def _matching(cases, key):
    if cases.empty or "backend" not in cases:
        return cases.iloc[0:0]
    chosen = cases[cases["family"] == "collective"]
    for column, value in key.items():
        chosen = chosen[chosen[column] == value]
    return chosen


def collective_rows(source_cases, projected, measured_cases, ranks):
    rows = []
    for figure in _figures(projected, "collective/projection/time", ranks=ranks).itertuples():
        key = {name: getattr(figure, name) for name in SWEEP_KEY}
        swept = _matching(source_cases, key)
        if swept.empty:
            continue
        size = swept["bytes"].max()
        at = _matching(measured_cases, key)
        at = at[at["bytes"] == size]
        if at.empty:
            continue
        rows.append({"what": f"{key['collective']} {key['backend']} {key['dtype']} "
                             f"{PLACEMENT_WORDS[key['placement']]} {int(size)} B",
                     "ranks": ranks, "projected": figure.value,
                     "measured": at["median_s"].iloc[0]})
    return rows


def step_rows(projected, measured_derived, ranks):
    rows = []
    for figure in _figures(projected, "step/projection", ranks=ranks).itertuples():
        at = _figures(measured_derived, "step/time", mode=figure.mode)
        at = at[at["subject"] == figure.subject]
        if at.empty:
            continue
        rows.append({"what": f"step {figure.subject} {figure.mode}", "ranks": ranks,
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
