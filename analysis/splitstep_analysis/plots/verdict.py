"""The figures a run's verdict judged measurements against, as the figures draw them."""
from typing import NamedTuple

import pandas as pd


class Expected(NamedTuple):
    """A figure the run's verdict judged a measurement against (docs/verdict.md): its item
    ("gemm-bf16", "hbm-triad", "allreduce-busbw"), unit, the expected value, the case it judged
    ("bf16 n=4096"), the figure's source, the family of the cases it judged ("matmul", "membw",
    "collective") and, for the GEMM item, their dtype (None for the others)."""
    item: str
    unit: str
    value: float
    case: str
    source: str
    family: str
    dtype: object


def verdict_expectations(document):
    """[Expected] of the document's derived results of suite "verdict", each item once (every
    node of a run has the same GPU's reference figures); [] without a verdict, or in a file
    written before derived figures had typed keys.

    Each item has figures keyed verdict/measured and verdict/expected (results-schema.md), both
    naming the item, the case it judged and that case's family; the expected one's note is its
    source."""
    expected = {}
    for derived in document.get("derived", []):
        if derived.get("suite") != "verdict":
            continue
        for figure in derived.get("figures", []):
            key = figure.get("key", {})
            if key.get("figure") == "verdict/expected" and key.get("item") not in expected:
                expected[key["item"]] = (figure, key)
    return [Expected(item, str(figure.get("unit", "")), float(figure["value"]),
                     str(key.get("case", "")), str(figure.get("note", "")),
                     str(key.get("family", "")), key.get("dtype"))
            for item, (figure, key) in expected.items()
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
