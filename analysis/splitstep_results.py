"""Load splitstep's results.json into pandas (docs/results-schema.md)."""
import json

import pandas as pd


def load_cases(path):
    """One row per measured case: suite, case, params, across-rank figures and rates.

    Times are seconds; `median_s` is the median of the per-rank medians, `max_s` the slowest
    rank's median. Skipped cases are left out.
    """
    with open(path) as f:
        document = json.load(f)
    if document.get("schema") != "splitstep.results/1":
        raise ValueError(f"{path}: not a splitstep.results/1 file")
    rows = []
    for case in document["cases"]:
        if case["skipped"]:
            continue
        across = case["across_ranks"]
        row = {
            "file": path,
            "suite": case["suite"],
            "case": case["case"],
            "median_s": across["median"],
            "min_s": across["min"],
            "max_s": across["max"],
            "slowest_rank": case["slowest_rank"],
            "wrong": case["check"]["wrong"],
            "arrival_skew_s": case.get("arrival_skew"),
        }
        row.update(case["params"])
        row.update({rate: value for rate, value in case["rates"].items()})
        rows.append(row)
    frame = pd.DataFrame(rows)
    for column in ("bytes", "size", "m", "n", "k", "count"):
        if column in frame:
            frame[column] = pd.to_numeric(frame[column])
    return frame
