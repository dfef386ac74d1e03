"""The report page's summary per suite: each case's median, with its uncertainty and its check."""
import html
import math

from .compare_text import format_time
from .report_cells import folded, format_number, format_percent, table

MEDIAN_CONFIDENCE = 0.95  # an interval of lower coverage (too few samples) is not reported


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value)


def median_reach(case):
    """How far the 95% interval of a rank's median reaches from it, relative to the median,
    the largest over ranks (as the console's ±ci): None where a rank has no interval (a file
    from before median_ci) or too few samples for a 95% one."""
    reach = 0.0
    for rank in case.get("ranks", []):
        interval, summary = rank.get("median_ci"), rank.get("summary")
        median = summary.get("median") if isinstance(summary, dict) else None
        if not isinstance(interval, dict) or not all(
                _is_number(v) for v in (median, interval.get("low"), interval.get("high"),
                                        interval.get("coverage"))) or \
                interval["coverage"] < MEDIAN_CONFIDENCE:
            return None
        if median:
            reach = max(reach, max(median - interval["low"], interval["high"] - median) /
                        abs(median))
    return reach if case.get("ranks") else None


def largest_noise(case):
    """std/mean of a rank's samples, the largest over ranks; None where no rank has it."""
    noises = [rank["noise"] for rank in case.get("ranks", []) if _is_number(rank.get("noise"))]
    return max(noises) if noises else None


def was_checked(case):
    """True where a check verified elements of the case's output (check.checked > 0)."""
    check = case.get("check")
    return isinstance(check, dict) and _is_number(check.get("checked")) and check["checked"] > 0


def wrong_cell(case):
    """The elements a check found wrong, or "N/A" where none was checked (matmul, membw and
    the step check nothing: "0 wrong" there would claim a check that did not run)."""
    if not was_checked(case):
        return "N/A"
    wrong = case["check"].get("wrong")
    return str(wrong) if _is_number(wrong) else "-"


SUMMARY_LEGEND = ("median: the median of the ranks' medians; ±ci: how far the 95% interval of "
                  "a rank's median reaches from it, the largest over ranks (- where a rank took "
                  "too few samples for one, or the file is older than intervals); noise: "
                  "std/mean of a rank's samples, the largest over ranks; wrong: the elements a "
                  "check found wrong, N/A where the case was not checked. A step's phases are "
                  "in its figure.")


def suite_rows(cases, ranks):
    """(header, rows) of a table of `cases` (the JSON's, of one suite): case, the series where
    they differ, median, ±ci, noise, the slowest rank where there are several, each rate the
    cases have, and wrong where some case was checked."""
    series = len({c["series"] for c in cases}) > 1
    rates = list(dict.fromkeys(name for c in cases for name in c.get("rates", {})))
    checked = any(was_checked(c) for c in cases)
    header = ["case"] + (["series"] if series else []) + ["median", "±ci", "noise"] + \
        (["slowest rank"] if ranks > 1 else []) + rates + (["wrong"] if checked else [])
    rows = []
    for c in cases:
        reach, noise = median_reach(c), largest_noise(c)
        rows.append([c["case"]] + ([c["series"]] if series else []) + [
            format_time(c["across_ranks"]["median"]),
            "-" if reach is None else "±" + format_percent(100 * reach),
            "-" if noise is None else format_percent(100 * noise)] +
            ([c.get("slowest_rank")] if ranks > 1 else []) +
            [format_number(c.get("rates", {}).get(r)) for r in rates] +
            ([wrong_cell(c)] if checked else []))
    return header, rows


def _numeric(header):
    """The columns of a summary table that hold numbers: all but the case and its series."""
    return [h for h in header if h not in ("case", "series")]


def summary_html(document):
    """Per suite: each measured series of a whole case, its median over ranks with its ±ci and
    noise, the slowest rank, its rates and its check. A step's phases are in its figure; its
    detail series (the bucket ledger, packing) are folded below its table, and a table longer
    than FOLD_ROWS is folded whole."""
    measured = [c for c in document["cases"] if not c.get("skipped", False)]
    if not measured:
        return "<p>No case was measured.</p>"
    ranks = document["metadata"].get("world_size") or 1
    suites = {}
    for c in measured:
        if not c.get("part_of"):
            suites.setdefault(c["suite"], []).append(c)
    parts = []
    for suite, cases in suites.items():
        wholes = [c for c in cases if not c.get("detail", False)]
        details = [c for c in cases if c.get("detail", False)]
        block = f"<h3>{html.escape(suite)}</h3>"
        if wholes:
            header, rows = suite_rows(wholes, ranks)
            block += folded(f"{len(rows)} cases", table(header, rows, numeric=_numeric(header)),
                            len(rows))
        if details:
            header, rows = suite_rows(details, ranks)
            block += folded(f"{len(rows)} detail series (bucket ledger, packing: drawn in the "
                            "figures)", table(header, rows, numeric=_numeric(header)), None)
        parts.append(f"<section>{block}</section>")
    return (f'<p class="note">{html.escape(SUMMARY_LEGEND)}</p>'
            f'<div class="suites">{"".join(parts)}</div>')
