"""A comparison written for CI: a markdown summary (a pull request's comment, a job's summary
page) and JUnit XML (the test report every CI system reads: a case slower is a failed test).

Both take what `compare` computed: per candidate its paths, the differences between the runs
(differences.run_differences) and the table of compare_documents.
"""
import math
import xml.etree.ElementTree as ElementTree

import pandas as pd

from .compare_stats import VERDICTS
from .compare_text import format_time


def _change(ratio):
    return "" if not math.isfinite(ratio) else f"{(ratio - 1.0) * 100:+.2f}%"


def _interval(row):
    return "" if not math.isfinite(row.ci_low) else \
        f"[{_change(row.ci_low)}, {_change(row.ci_high)}]"


def _name(row):
    rank = "" if row.rank is None or pd.isna(row.rank) else f" rank {int(row.rank)}"
    return f"{row.case} / {row.series}{rank}"


def markdown(comparisons, threshold, alpha):
    """The markdown text of [(baseline paths, candidate paths, differences, frame)]."""
    parts = []
    for baseline, candidate, differences, frame in comparisons:
        parts.append(f"## {', '.join(candidate)} against {', '.join(baseline)}\n")
        if differences:
            table = pd.DataFrame(differences, columns=["what", "name", "baseline", "candidate"])
            parts.append("What differs between the runs:\n\n" + table.to_markdown(index=False) +
                         "\n")
        else:
            parts.append("The runs' plans, versions, GPUs and environment are the same.\n")
        counts = frame["verdict"].value_counts()
        parts.append(", ".join(f"**{int(counts.get(v, 0))} {v}**" for v in VERDICTS) +
                     f" (threshold ±{threshold * 100:g}%, alpha {alpha:g})\n")
        rows = [[row.suite, _name(row), format_time(row.baseline_median_s),
                 format_time(row.candidate_median_s), _change(row.ratio), _interval(row),
                 row.verdict + (f" ({row.note})" if row.note else "")]
                for row in frame.itertuples(index=False)]
        parts.append(pd.DataFrame(rows, columns=[
            "suite", "case / series", "baseline", "candidate", "change",
            f"{(1 - alpha) * 100:g}% CI", "verdict"]).to_markdown(index=False) + "\n")
    return "\n".join(parts)


def junit(comparisons, fail_on_unclear=False):
    """The JUnit XML text of [(baseline paths, candidate paths, differences, frame)]: a test
    suite per candidate, a test per case. Slower fails (and unclear, with fail_on_unclear);
    a case not compared (skipped, only in one file) is a skipped test, with the reason."""
    failing = ("slower", "unclear") if fail_on_unclear else ("slower",)
    root = ElementTree.Element("testsuites", name="splitstep-analysis compare")
    for baseline, candidate, differences, frame in comparisons:
        suite = ElementTree.SubElement(root, "testsuite",
                                       name=f"{','.join(candidate)} against {','.join(baseline)}",
                                       tests=str(len(frame)))
        if differences:
            properties = ElementTree.SubElement(suite, "properties")
            for what, name, before, after in differences:
                ElementTree.SubElement(properties, "property", name=f"differs: {what} {name}",
                                       value=f"{before} | {after}")
        failures = skipped = 0
        for row in frame.itertuples(index=False):
            test = ElementTree.SubElement(suite, "testcase", classname=row.suite,
                                          name=_name(row))
            said = f"{row.verdict}: {format_time(row.baseline_median_s)} -> " \
                   f"{format_time(row.candidate_median_s)} ({_change(row.ratio) or 'no ratio'}" \
                   f"{', CI ' + _interval(row) if _interval(row) else ''})" + \
                   (f"; {row.note}" if row.note else "")
            if row.verdict in failing:
                failures += 1
                ElementTree.SubElement(test, "failure", message=said, type=row.verdict)
            elif row.verdict not in VERDICTS:
                skipped += 1
                ElementTree.SubElement(test, "skipped", message=said)
            else:
                ElementTree.SubElement(test, "system-out").text = said
        suite.set("failures", str(failures))
        suite.set("skipped", str(skipped))
        suite.set("errors", "0")
    ElementTree.indent(root)
    return ElementTree.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
