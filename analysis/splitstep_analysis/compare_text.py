"""A comparison printed for the terminal: each side's runs, what differs between them, the
table of verdicts, the cases not compared, and the counts."""
import math
import sys

import pandas as pd

from .compare_stats import VERDICTS


def format_time(seconds):
    """Seconds in the unit %timeit would use: 1.234 ms, 56.78 us."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds / 1e-9:.4g} ns"


def _percent(ratio):
    return "-" if not math.isfinite(ratio) else f"{(ratio - 1.0) * 100:+.2f}%"


def _table(frame, per_rank, level):
    headers = ["suite", "case", "series"] + (["rank"] if per_rank else []) + [
        "baseline", "candidate", "change", f"{level:g}% CI", "p", "verdict"]
    lines = []
    for row in frame.itertuples(index=False):
        ci = "-" if not math.isfinite(row.ci_low) else \
            f"[{_percent(row.ci_low)}, {_percent(row.ci_high)}]"
        p = "-" if not math.isfinite(row.p_value) else \
            "<1e-99" if row.p_value < 1e-99 else f"{row.p_value:.2g}"
        verdict = row.verdict + (f" ({row.note})" if row.note else "")
        lines.append([row.suite, row.case, row.series] + ([str(row.rank)] if per_rank else []) + [
            format_time(row.baseline_median_s), format_time(row.candidate_median_s),
            _percent(row.ratio), ci, p, verdict])
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(headers)]
    numeric = {"baseline", "candidate", "change", "p"}
    out = []
    for line in [headers] + lines:
        cells = [cell.rjust(w) if headers[i] in numeric else cell.ljust(w)
                 for i, (cell, w) in enumerate(zip(line, widths))]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)


def _describe(path, document):
    meta = document["metadata"]
    parts = [f"{meta.get('world_size', '?')} ranks"]
    for key in ("git_revision", "started_utc"):
        if meta.get(key):
            parts.append(str(meta[key]))
    return f"{path} ({', '.join(parts)})"


def report(baseline_paths, baselines, candidate_paths, candidates, frame, threshold, alpha,
           per_rank, differences=(), out=None, warnings=()):
    """Print the comparison of one candidate: header (each side's runs), what differs between
    the runs, table, cases not compared, summary. The paths and documents are lists: the runs
    of a side; `differences` is run_differences' list."""
    out = out or sys.stdout
    level = (1.0 - alpha) * 100
    for side, paths, documents in (("baseline", baseline_paths, baselines),
                                   ("candidate", candidate_paths, candidates)):
        for index, (path, document) in enumerate(zip(paths, documents)):
            print(f"{side + ':' if index == 0 else '':11}{_describe(path, document)}", file=out)
    if differences:
        print("differs:", file=out)
        for what, name, before, after in differences:
            print(f"  {what} {name}: {before} | {after}", file=out)
    else:
        print("differs:   nothing in the plans, versions, GPUs and environment", file=out)
    for warning in warnings:
        print(warning, file=out)
    print(f"rule: slower/faster when Mann-Whitney p < {alpha:g} and the {level:g}% interval of "
          f"the median ratio, bootstrapped over runs and over contiguous blocks of each run's "
          f"samples, lies beyond +-{threshold * 100:g}%; same when it lies within; times, so a "
          f"rate changes by 1/ratio - 1", file=out)
    compared = frame[frame["verdict"].isin(VERDICTS)]
    print("", file=out)
    if compared.empty:
        print("no case of the baseline was measured in the candidate", file=out)
    else:
        print(_table(compared, per_rank, level), file=out)
    for verdict in ("skipped", "only in baseline", "only in candidate"):
        rest = frame[frame["verdict"] == verdict]
        if rest.empty:
            continue
        print(f"\n{verdict}{' (not compared)' if verdict == 'skipped' else ''}:", file=out)
        for row in rest.itertuples(index=False):
            rank = f" rank {row.rank}" if per_rank and row.rank is not None and \
                not pd.isna(row.rank) else ""
            note = f" ({row.note})" if row.note else ""
            print(f"  {row.suite} / {row.case} / {row.series}{rank}{note}", file=out)
    counts = frame["verdict"].value_counts()
    only = int(counts.get("only in baseline", 0) + counts.get("only in candidate", 0))
    print(f"\n{len(compared)} compared: " + ", ".join(
        f"{int(counts.get(v, 0))} {v}" for v in VERDICTS) +
        f"; {only} only in one file ({int(counts.get('only in baseline', 0))} baseline, "
        f"{int(counts.get('only in candidate', 0))} candidate); "
        f"{int(counts.get('skipped', 0))} skipped", file=out)
    if len(baselines) == 1 and len(candidates) == 1 and \
            compared["verdict"].isin(("faster", "slower")).any():
        print("note: one run a side: a verdict cannot tell the change from the variation between "
              "runs (the clocks, the GPU's state, the node's load at the time); give each side "
              "two or more runs (docs/analysis.md#repeats)", file=out)
