"""The figures a run's verdict judged measurements against, as the figures draw them."""
import re
from typing import NamedTuple

import pandas as pd


class Expected(NamedTuple):
    """A figure the run's verdict judged a measurement against (docs/verdict.md): its item
    ("gemm-bf16", "hbm-triad", "allreduce-busbw"), unit, the expected value, the case it judged
    ("bf16 n=4096"; "" where the file does not name one) and the figure's source."""
    item: str
    unit: str
    value: float
    case: str
    source: str


def verdict_expectations(document):
    """[Expected] of the document's derived results of suite "verdict", each item once (every
    node of a run has the same GPU's reference figures); [] without a verdict.

    Each item has the figures verdict/<item>/measured, named "<label> (<case>)", and
    verdict/<item>/expected, whose note is its source."""
    expected, judged = {}, {}
    for derived in document.get("derived", []):
        if derived.get("suite") != "verdict":
            continue
        for figure in derived.get("figures", []):
            parts = str(figure.get("tag", "")).split("/")
            if len(parts) != 3:
                continue
            _, item, kind = parts
            if kind == "expected" and item not in expected:
                expected[item] = figure
            elif kind == "measured" and item not in judged:
                named = re.search(r"\(([^()]*)\)$", str(figure.get("name", "")))
                judged[item] = named.group(1) if named else ""
    return [Expected(item, str(figure.get("unit", "")), float(figure["value"]),
                     judged.get(item, ""), str(figure.get("note", "")))
            for item, figure in expected.items()
            if isinstance(figure.get("value"), (int, float))]


def _expected_by(frame, expected, unit, column, fallback):
    """{value of `column` (a dtype, a case): Expected} of the verdict's figures in `unit`: each
    placed at the row of the case it judged, or where the file names no case found in `frame`,
    at fallback(expected) (None: not drawn)."""
    placed = {}
    for figure in expected:
        if figure.unit != unit:
            continue
        judged = frame[frame["case"] == figure.case] if figure.case else frame.iloc[0:0]
        key = judged[column].iloc[0] if not judged.empty else fallback(figure)
        if key is not None and not pd.isna(key):
            placed.setdefault(key, figure)
    return placed
