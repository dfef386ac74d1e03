"""Load splitstep's results.json into pandas (docs/results-schema.md)."""
import json

import pandas as pd


def _read(path):
    with open(path) as f:
        document = json.load(f)
    if document.get("schema") != "splitstep.results/1":
        raise ValueError(f"{path}: not a splitstep.results/1 file")
    return document


def load_cases(path):
    """One row per measured case and series: suite, case, series, params, across-rank figures
    and rates.

    Times are seconds; `median_s` is the median of the per-rank medians, `max_s` the slowest
    rank's median. A training step's phases have `part_of` "step" and their `share` of it.
    Skipped cases are left out.
    """
    document = _read(path)
    rows = []
    for case in document["cases"]:
        if case["skipped"]:
            continue
        across = case["across_ranks"]
        row = {
            "file": path,
            "suite": case["suite"],
            "case": case["case"],
            "series": case["series"],
            "part_of": case.get("part_of", ""),
            "share": case.get("share"),
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


def load_derived(path):
    """One row per derived figure (docs/metrics.md): suite, subject (e.g. "mlp bf16"), tag
    (e.g. "step/exposed/overlap"), name, unit, value and note; times in seconds."""
    document = _read(path)
    rows = []
    for derived in document.get("derived", []):
        for figure in derived["figures"]:
            rows.append({"file": path, "suite": derived["suite"], "subject": derived["subject"],
                         "tag": figure["tag"], "name": figure["name"], "unit": figure["unit"],
                         "value": figure["value"], "note": figure.get("note", "")})
    return pd.DataFrame(rows)
