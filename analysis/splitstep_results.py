"""Load splitstep's results.json into pandas (docs/results-schema.md).

`read_results` checks a file's structure and returns the document; the loaders turn it into
DataFrames: `load_cases` (one row per case and series, across-rank figures), `load_ranks` (one
row per case, series and rank), `load_samples` (one row per sample), `load_telemetry` (one row
per case, series and rank with GPU telemetry) and `load_derived` (one row per derived figure).
Times are seconds throughout.
"""
import json
import math

import pandas as pd

SCHEMA = "splitstep.results/1"
NUMERIC_PARAMS = ("bytes", "size", "m", "n", "k", "count", "batch", "flop_per_step",
                  "world_size", "parameters", "buckets", "gradient_bytes")


class ResultsError(ValueError):
    """A file that is not a readable splitstep.results/1 document; the message names the file
    and what is wrong, in one line."""


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check(document, path):
    def fail(reason):
        raise ResultsError(f"{path}: {reason}")

    if not isinstance(document, dict):
        fail("not a JSON object")
    if document.get("schema") != SCHEMA:
        fail(f"not a {SCHEMA} file (schema: {document.get('schema')!r})")
    for key, kind in (("metadata", dict), ("cases", list)):
        if not isinstance(document.get(key), kind):
            fail(f"'{key}' is missing or not a JSON {'object' if kind is dict else 'array'}")
    seen = set()
    for index, case in enumerate(document["cases"]):
        where = f"cases[{index}]"
        if not isinstance(case, dict):
            fail(f"{where} is not an object")
        for key in ("suite", "case", "series"):
            if not isinstance(case.get(key), str):
                fail(f"{where}.{key} is missing or not a string")
        key = (case["suite"], case["case"], case["series"])
        if key in seen:
            fail(f"{where}: case {' / '.join(key)} appears twice")
        seen.add(key)
        if not isinstance(case.get("skipped", False), bool):
            fail(f"{where}.skipped is not true or false")
        if not all(isinstance(case.get(key, {}), dict) for key in ("params", "rates")):
            fail(f"{where}: params or rates is not an object")
        if not isinstance(case.get("ranks", []), list):
            fail(f"{where}.ranks is not an array")
        if not case.get("skipped", False):
            across = case.get("across_ranks")
            if not isinstance(across, dict) or not _number(across.get("median")):
                fail(f"{where}.across_ranks.median is missing or not a number")
        for rank_index, rank in enumerate(case.get("ranks", [])):
            at = f"{where}.ranks[{rank_index}]"
            if not isinstance(rank, dict) or not isinstance(rank.get("rank"), int):
                fail(f"{at}.rank is missing or not an integer")
            values = rank.get("values", [])
            if not isinstance(values, list) or not all(_number(v) for v in values):
                fail(f"{at}.values is not an array of numbers")
    derived = document.get("derived", [])
    if not isinstance(derived, list):
        fail("'derived' is not an array")
    for index, entry in enumerate(derived):
        figures = entry.get("figures") if isinstance(entry, dict) else None
        if not isinstance(figures, list) or not all(
                isinstance(f, dict) and isinstance(f.get("tag"), str) and _number(f.get("value"))
                for f in figures):
            fail(f"derived[{index}].figures is not an array of figures with a tag and a value")


def read_results(path):
    """The document of a results file, after checking the structure the loaders rely on.

    Raises ResultsError (a ValueError) naming the file and the first problem found."""
    try:
        with open(path) as f:
            document = json.load(f)
    except OSError as error:
        raise ResultsError(f"{path}: cannot read: {error.strerror or error}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ResultsError(f"{path}: not JSON: {error}") from None
    _check(document, path)
    return document


def _document(source):
    return (source, "<document>") if isinstance(source, dict) else (read_results(source), source)


def _params(case):
    """A case's params, with the names of the current schema for files of earlier revisions
    (their collectives had `in_place` instead of `placement`, and no `size`)."""
    params = dict(case.get("params", {}))
    if "in_place" in params and "placement" not in params:
        params["placement"] = "in place" if params["in_place"] == "true" else "out of place"
    if case["suite"] in ("allreduce", "reduce_scatter", "allgather", "broadcast"):
        if "bytes" in params and "size" not in params:
            params["size"] = params["bytes"]
    return params


def _numeric(frame):
    for column in NUMERIC_PARAMS:
        if column in frame:
            frame[column] = pd.to_numeric(frame[column], errors="coerce")
    return frame


def load_cases(source):
    """One row per measured case and series: suite, case, series, params, across-rank figures
    and rates.

    `source` is a path or a document from `read_results`. Times are seconds; `median_s` is the
    median of the per-rank medians, `max_s` the slowest rank's median. A training step's phases
    have `part_of` "step" and their `share` of it. Skipped cases are left out.
    """
    document, path = _document(source)
    rows = []
    for case in document["cases"]:
        if case.get("skipped", False):
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
            "min_s": across.get("min"),
            "max_s": across.get("max"),
            "slowest_rank": case.get("slowest_rank"),
            "wrong": case.get("check", {}).get("wrong"),
            "arrival_skew_s": case.get("arrival_skew"),
        }
        row.update(_params(case))
        row.update({rate: value for rate, value in case.get("rates", {}).items()})
        rows.append(row)
    return _numeric(pd.DataFrame(rows))


def _median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def load_ranks(source):
    """One row per measured case, series and rank: suite, case, series, part_of, rank, host,
    samples (their count), median_s, mean_s, min_s, max_s (over that rank's samples), and the
    case's params (a matmul's `n` is its shape).

    A step case in mode single has a row for rank 0 only. Skipped cases are left out.
    """
    document, path = _document(source)
    hosts = {r.get("rank"): r.get("host") for r in document.get("ranks", [])
             if isinstance(r, dict)}
    rows = []
    for case in document["cases"]:
        if case.get("skipped", False):
            continue
        params = _params(case)
        for rank in case.get("ranks", []):
            values = rank.get("values", [])
            if not values:
                continue
            row = {"file": path, "suite": case["suite"], "case": case["case"],
                   "series": case["series"], "part_of": case.get("part_of", ""),
                   "rank": rank["rank"], "host": hosts.get(rank["rank"]), "samples": len(values),
                   "median_s": _median(values), "mean_s": sum(values) / len(values),
                   "min_s": min(values), "max_s": max(values)}
            row.update(params)
            rows.append(row)
    return _numeric(pd.DataFrame(rows))


def load_samples(source):
    """One row per sample: suite, case, series, rank, sample (its index on that rank) and
    value_s (seconds per execution), for every measured case. Long format, for histograms,
    violin plots or statistics of your own."""
    document, path = _document(source)
    frames = []
    for case in document["cases"]:
        if case.get("skipped", False):
            continue
        for rank in case.get("ranks", []):
            values = rank.get("values", [])
            if values:
                frames.append(pd.DataFrame({
                    "suite": case["suite"], "case": case["case"], "series": case["series"],
                    "rank": rank["rank"], "sample": range(len(values)), "value_s": values}))
    if not frames:
        return pd.DataFrame(columns=["suite", "case", "series", "rank", "sample", "value_s"])
    return pd.concat(frames, ignore_index=True)


def load_telemetry(source):
    """One row per measured case, series and rank that carries telemetry (docs/telemetry.md):
    suite, case, series, part_of, rank, readings, for each quantity read `<quantity>_mean`,
    `_min`, `_max` (e.g. sm_clock_mhz_mean, power_w_max), for each clock limit that held
    `limit <name>` (the share of readings, e.g. "limit power cap"), and the case's params."""
    document, path = _document(source)
    rows = []
    for case in document["cases"]:
        if case.get("skipped", False):
            continue
        params = _params(case)
        for rank in case.get("ranks", []):
            telemetry = rank.get("telemetry")
            if not isinstance(telemetry, dict):
                continue
            row = {"file": path, "suite": case["suite"], "case": case["case"],
                   "series": case["series"], "part_of": case.get("part_of", ""),
                   "rank": rank["rank"], "readings": telemetry.get("readings", 0)}
            for key, value in telemetry.items():
                if isinstance(value, dict) and "mean" in value:
                    for statistic in ("mean", "min", "max"):
                        row[f"{key}_{statistic}"] = value.get(statistic)
            for limit, share in telemetry.get("clock_limits", {}).items():
                row[f"limit {limit}"] = share
            row.update(params)
            rows.append(row)
    return _numeric(pd.DataFrame(rows))


def load_derived(source):
    """One row per derived figure (docs/metrics.md): suite, subject (e.g. "mlp bf16"), tag
    (e.g. "step/exposed/overlap"), name, unit, value, note and per_rank (a dict rank -> value,
    empty when the figure has none); times in seconds."""
    document, path = _document(source)
    rows = []
    for derived in document.get("derived", []):
        for figure in derived["figures"]:
            rows.append({"file": path, "suite": derived.get("suite"),
                         "subject": derived.get("subject"), "tag": figure["tag"],
                         "name": figure.get("name"), "unit": figure.get("unit"),
                         "value": figure["value"], "note": figure.get("note", ""),
                         "per_rank": {p["rank"]: p["value"] for p in figure.get("per_rank", [])}})
    return pd.DataFrame(rows)


def load_findings(source):
    """One row per diagnosis finding: suite, subject and finding (one sentence)."""
    document, path = _document(source)
    rows = [{"file": path, "suite": derived.get("suite"), "subject": derived.get("subject"),
             "finding": finding}
            for derived in document.get("derived", []) for finding in derived.get("findings", [])]
    return pd.DataFrame(rows, columns=["file", "suite", "subject", "finding"])
