"""splitstep's results files as pandas DataFrames (docs/analysis.md).

The loaders take a path or a document from `read_results` (schema v1 or v2): `load_cases` (one
row per case and series, across-rank figures), `load_ranks` (one row per case, series and rank),
`load_samples` (one row per sample), `load_telemetry` (one row per case, series and rank with
GPU telemetry), `load_derived` (one row per derived figure) and `load_findings`. Each case's
fields are columns typed as the file's catalogue says: integers as pandas' nullable Int64,
numbers as float64, booleans as boolean, strings and integer lists as objects (an absent field
is missing). Times are seconds throughout.
"""
import pandas as pd

# read_results, catalogue and the errors are re-exported: one import for a notebook.
from . import vocabulary
from .rates import FRAME_ATTRIBUTE, rates
from .schema import (BadInput, ResultsError, as_document, catalogue, field_types,  # noqa: F401
                     read_results)

_DTYPES = {"integer": "Int64", "number": "float64", "boolean": "boolean"}


def _typed(frame, document):
    """`frame` with each case-field column in the dtype of its catalogue type, and the file's
    vocabulary (a field's names in order, a step's phases) on it for figures given the frame."""
    for name, kind in field_types(document).items():
        if name in frame and kind in _DTYPES:
            frame[name] = frame[name].astype(_DTYPES[kind])
    frame.attrs[vocabulary.FRAME_ATTRIBUTE] = vocabulary.vocabulary(document)
    return frame


def _base(case, path):
    return {"file": path, "suite": case["suite"], "family": case["family"], "case": case["case"],
            "series": case["series"], "part_of": case.get("part_of", "")}


def _measured(document):
    return [case for case in document["cases"] if not case.get("skipped", False)]


def load_cases(source):
    """One row per measured case and series: file, suite, family, case, series, part_of, share,
    the across-rank figures, the case's fields and its rates.

    `median_s` is the median of the per-rank medians, `max_s` the slowest rank's median. A
    training step's phases have `part_of` "step" and their `share` of it. Skipped cases are
    left out.
    """
    document, path = as_document(source)
    rows = []
    for case in _measured(document):
        across = case["across_ranks"]
        row = _base(case, path)
        row.update({"share": case.get("share"), "median_s": across["median"],
                    "min_s": across.get("min"), "max_s": across.get("max"),
                    "slowest_rank": case.get("slowest_rank"),
                    "wrong": case.get("check", {}).get("wrong"),
                    "arrival_skew_s": case.get("arrival_skew")})
        row.update(case["fields"])
        row.update(case.get("rates", {}))
        rows.append(row)
    frame = _typed(pd.DataFrame(rows), document)
    # Rates by key (rates.rate_column), for code that is given the frame alone.
    frame.attrs[FRAME_ATTRIBUTE] = rates(document)
    return frame


def _median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def load_ranks(source):
    """One row per measured case, series and rank: file, suite, family, case, series, part_of,
    rank, host, samples (their count), median_s, mean_s, min_s, max_s (over that rank's
    samples), and the case's fields (a matmul's `n` is its shape).

    A step case in mode single has a row for rank 0 only. Skipped cases are left out.
    """
    document, path = as_document(source)
    hosts = {r.get("rank"): r.get("host") for r in document.get("ranks", [])
             if isinstance(r, dict)}
    rows = []
    for case in _measured(document):
        for rank in case.get("ranks", []):
            values = rank.get("values", [])
            if not values:
                continue
            row = _base(case, path)
            row.update({"rank": rank["rank"], "host": hosts.get(rank["rank"]),
                        "samples": len(values), "median_s": _median(values),
                        "mean_s": sum(values) / len(values), "min_s": min(values),
                        "max_s": max(values)})
            row.update(case["fields"])
            rows.append(row)
    return _typed(pd.DataFrame(rows), document)


def load_samples(source):
    """One row per sample: suite, case, series, rank, sample (its index on that rank) and
    value_s (seconds per execution), for every measured case. Long format, for histograms,
    violin plots or statistics of your own."""
    document, _ = as_document(source)
    frames = [pd.DataFrame({"suite": case["suite"], "case": case["case"],
                            "series": case["series"], "rank": rank["rank"],
                            "sample": range(len(rank["values"])), "value_s": rank["values"]})
              for case in _measured(document) for rank in case.get("ranks", [])
              if rank.get("values")]
    if not frames:
        return pd.DataFrame(columns=["suite", "case", "series", "rank", "sample", "value_s"])
    return pd.concat(frames, ignore_index=True)


def load_telemetry(source):
    """One row per measured case, series and rank that carries telemetry (docs/telemetry.md):
    suite, family, case, series, part_of, rank, readings, max_clock_mhz (the GPU's maximum SM
    clock as the rank read it before the case, where it did), for each quantity read
    `<quantity>_mean`, `_min`, `_max` (e.g. sm_clock_mhz_mean, power_w_max), for each clock
    limit that held `limit <name>` (the share of readings, e.g. "limit power cap"), and the
    case's fields."""
    document, path = as_document(source)
    rows = []
    for case in _measured(document):
        for rank in case.get("ranks", []):
            telemetry = rank.get("telemetry")
            if not isinstance(telemetry, dict):
                continue
            row = _base(case, path)
            row.update({"rank": rank["rank"], "readings": telemetry.get("readings", 0),
                        "max_clock_mhz": (rank.get("clock_at_start") or {}).get("max_mhz")})
            for key, value in telemetry.items():
                if isinstance(value, dict) and "mean" in value:
                    for statistic in ("mean", "min", "max"):
                        row[f"{key}_{statistic}"] = value.get(statistic)
            for limit, share in telemetry.get("clock_limits", {}).items():
                row[f"limit {limit}"] = share
            row.update(case["fields"])
            rows.append(row)
    return _typed(pd.DataFrame(rows), document)


def load_derived(source):
    """One row per derived figure (docs/metrics.md): suite, subject (e.g. "mlp bf16"), tag
    (e.g. "step/exposed/overlap"), name, unit, value, note and per_rank (a dict rank -> value,
    empty when the figure has none); times in seconds. A column per field of the figures' typed
    keys besides (figure, collective, ranks, mode, item, ...; results-schema.md), empty where a
    figure has no such field: select figures by them, not by taking a tag apart."""
    document, path = as_document(source)
    rows = [{**figure.get("key", {}),
             "file": path, "suite": derived.get("suite"), "subject": derived.get("subject"),
             "tag": figure["tag"], "name": figure.get("name"), "unit": figure.get("unit"),
             "value": figure["value"], "note": figure.get("note", ""),
             "per_rank": {p["rank"]: p["value"] for p in figure.get("per_rank", [])}}
            for derived in document.get("derived", []) for figure in derived["figures"]]
    return pd.DataFrame(rows)


def load_findings(source):
    """One row per diagnosis finding: suite, subject and finding (one sentence)."""
    document, path = as_document(source)
    rows = [{"file": path, "suite": derived.get("suite"), "subject": derived.get("subject"),
             "finding": finding}
            for derived in document.get("derived", []) for finding in derived.get("findings", [])]
    return pd.DataFrame(rows, columns=["file", "suite", "subject", "finding"])
