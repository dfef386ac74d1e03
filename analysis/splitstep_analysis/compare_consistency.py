"""compare --consistency: do two runs' medians agree, case by case, where both runs are quiet."""
from .schema import BadInput


def _spread(case, path):
    """The largest std/mean over a case's ranks."""
    try:
        return max(rank["summary"]["cv"] for rank in case["ranks"])
    except (KeyError, TypeError, ValueError):
        raise BadInput(f"{path}: case {case['suite']} / {case['case']} / {case['series']} has "
                       f"no ranks[].summary.cv") from None


def medians_by_key(document, path="<document>"):
    """{(suite, case, series): (median seconds, largest cv over ranks)} of the measured wholes."""
    return {(case["suite"], case["case"], case["series"]):
            (case["across_ranks"]["median"], _spread(case, path))
            for case in document["cases"]
            if not case.get("skipped", False) and not case.get("part_of")}


def consistency(first, second, spread, within):
    """Rows (suite, case, median 1, median 2, ratio, spread 1, spread 2, verdict) for the cases
    of both runs, in the first run's order; verdict is "ok", "OUTSIDE" or "noisy" (not judged)."""
    rows = []
    for key, (median1, spread1) in first.items():
        if key not in second:
            continue
        median2, spread2 = second[key]
        ratio = median2 / median1 if median1 > 0 else float("nan")
        if spread1 >= spread or spread2 >= spread:
            verdict = "noisy"
        else:
            verdict = "ok" if abs(ratio - 1) <= within else "OUTSIDE"
        rows.append((key[0], key[1], median1, median2, ratio, spread1, spread2, verdict))
    return rows
