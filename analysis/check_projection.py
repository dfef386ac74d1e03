"""A run's projection to more ranks checked against runs at those rank counts.

    check_projection.py SOURCE.json MEASURED.json...
    check_projection.py out/step-np2.json out/step-np4.json out/step-np8.json out/allreduce-np4.json

SOURCE holds the projection (docs/metrics.md, "Projection"): for every rank count N of a
MEASURED file, each projected collective time (collective/projection/<key>/N=<N>/time, at the
largest size SOURCE measured) is set beside the measured median of the same collective, backend,
dtype, placement and size, and each projected step time (step/projection/N=<N>/T_seq, /T_ddp)
beside the measured T_seq and T_ddp of the same workload. Prints projected / measured; exit
status 2 when nothing could be compared.
"""
import argparse
import json
import re
import sys

import pandas as pd

from splitstep_results import load_cases, load_derived

COLLECTIVE = re.compile(r"collective/projection/([^/]+)/([^/]+)/([^/]+)/(out|in)/N=(\d+)/time")
STEP = re.compile(r"step/projection/N=(\d+)/(T_seq|T_ddp)")
MEASURED_STEP = {"T_seq": "step/time/sequential", "T_ddp": "step/time/overlap"}
PLACEMENTS = {"out": "out of place", "in": "in place"}


def world_size(path):
    with open(path) as f:
        return json.load(f)["metadata"]["world_size"]


def collective_rows(source_cases, projected, measured_cases, ranks):
    rows = []
    for figure in projected.itertuples():
        match = COLLECTIVE.fullmatch(figure.tag)
        if not match or int(match.group(5)) != ranks:
            continue
        suite, backend, dtype, placement = match.group(1, 2, 3, 4)
        key = {"suite": suite, "backend": backend, "dtype": dtype,
               "placement": PLACEMENTS[placement]}

        def of(cases):
            if cases.empty or "backend" not in cases:
                return cases.iloc[0:0]
            chosen = cases
            for column, value in key.items():
                chosen = chosen[chosen[column] == value]
            return chosen

        swept = of(source_cases)
        if swept.empty:
            continue
        size = swept["bytes"].max()
        at = of(measured_cases)
        at = at[at["bytes"] == size]
        if at.empty:
            continue
        rows.append({"what": f"{suite} {backend} {dtype} {key['placement']} {int(size)} B",
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


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="the results.json whose projection is checked")
    parser.add_argument("measured", nargs="+", help="results.json files at other rank counts")
    args = parser.parse_args()

    projected = load_derived(args.source)
    if projected.empty:
        print(f"{args.source}: no derived figures", file=sys.stderr)
        return 2
    source_cases = load_cases(args.source)
    rows = []
    for path in args.measured:
        ranks = world_size(path)
        rows += collective_rows(source_cases, projected, load_cases(path), ranks)
        rows += step_rows(projected, load_derived(path), ranks)
    if not rows:
        print("nothing to compare: no projection in the source at a measured rank count",
              file=sys.stderr)
        return 2
    table = pd.DataFrame(rows)
    table["ratio"] = table["projected"] / table["measured"]
    with pd.option_context("display.width", 200, "display.max_rows", 1000):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.6g}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
