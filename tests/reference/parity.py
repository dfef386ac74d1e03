#!/usr/bin/env python3
"""splitstep's step phases beside its PyTorch eager twin (step_twin.py), as ratios.

  parity.py splitstep-np1.json splitstep-np2.json twin-*.json [--tolerance 2%] [--csv out.csv]

Files are told apart by their content: splitstep's results (docs/results-schema.md) and the
twin's JSON (`"tool": "step_twin"`). Each splitstep step case is paired with the twin run of
the same model, precision, optimizer, input and parameter count that stands for its mode:

  single, or none on one rank   the twin alone (no --ddp)
  overlap                       the twin under --ddp, on as many ranks
  none (several ranks)          the twin under --ddp --no-sync, on as many ranks

Rows: forward, backward, optimizer and the whole step; in modes that sync, splitstep's backward
row holds backward + sync, as DDP's backward holds its wait for the buckets. A twin run with
--optimizer-only adds an `optimizer alone` row (not in fp16, whose optimizer phase also
unscales). Times are the median over ranks of each rank's median. Only malformed input makes
the exit status non-zero (2).
"""
import argparse
import csv
import json
import statistics
import sys
from typing import NamedTuple

# The results schemas this reads (docs/results-schema.md).
SCHEMAS = ("splitstep.results/1", "splitstep.results/2")
ROWS = ("forward", "backward", "optimizer", "step")


class Malformed(Exception):
    """An input that is not what it claims to be: one line, exit status 2."""


class Case(NamedTuple):
    """One splitstep step case: its parameters and its series by name."""

    file: str
    model: str
    precision: str
    mode: str
    world_size: int
    optimizer: str
    optimizer_impl: str  # "" where splitstep does not say
    input: str
    parameters: int
    series: dict


def twin_kind(mode, world_size):
    """Which twin run stands for a splitstep mode; None where PyTorch has none (sequential)."""
    if mode == "single" or (mode == "none" and world_size == 1):
        return ("alone", 1)
    if mode == "overlap":
        return ("ddp", world_size)
    if mode == "none":
        return ("no_sync", world_size)
    return None


def read(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise Malformed(f"{path}: {e}")


def splitstep_cases(path, document):
    grouped = {}
    try:
        for case in document["cases"]:
            # Detail series (a bucket's timeline) have no counterpart in the twin.
            if case["suite"] != "step" or case["skipped"] or case.get("detail", False):
                continue
            grouped.setdefault(case["case"], []).append(case)
        cases = []
        for name, entries in grouped.items():
            missing = set(ROWS) - {entry["series"] for entry in entries}
            if missing:
                raise ValueError(f"case '{name}' lacks the series {', '.join(sorted(missing))}")
            # Schema 2 has typed "fields"; schema 1 had every value a string in "params".
            params = entries[0].get("fields", entries[0].get("params"))
            cases.append(Case(path, params["model"], params["precision"], params["mode"],
                              int(params["world_size"]), params["optimizer"],
                              params.get("optimizer_impl", ""), params["input"],
                              int(params["parameters"]),
                              {entry["series"]: entry for entry in entries}))
        return cases
    except (KeyError, TypeError, ValueError) as e:
        raise Malformed(f"{path}: not a splitstep step result ({type(e).__name__}: {e})")


def check_twin(path, document):
    try:
        for key in ("model", "precision", "optimizer", "optimizer_impl", "input", "world_size",
                    "ddp", "no_sync", "parameters"):
            document[key]
        for rank in document["ranks"]:
            for values in rank["phases"].values():
                if not values or not all(isinstance(v, (int, float)) for v in values):
                    raise ValueError("a phase without times")
    except (KeyError, TypeError, ValueError) as e:
        raise Malformed(f"{path}: not a step_twin result ({type(e).__name__}: {e})")


def splitstep_seconds(case, names):
    """The median over ranks of each rank's median; for several series, of the per-sample sums
    (the phases of one step are samples of the same index)."""
    if len(names) == 1:
        return case.series[names[0]]["across_ranks"]["median"]
    by_rank = [{r["rank"]: r.get("values", []) for r in case.series[n]["ranks"]} for n in names]
    medians = []
    for rank, first in by_rank[0].items():
        columns = [first] + [other.get(rank, []) for other in by_rank[1:]]
        if first and all(len(c) == len(first) for c in columns):
            medians.append(statistics.median(sum(v) for v in zip(*columns)))
    if not medians:
        raise Malformed(f"{case.file}: {' + '.join(names)} of {case.model} {case.precision} "
                        f"{case.mode} have no per-sample values to add")
    return statistics.median(medians)


def twin_seconds(document, phase):
    return statistics.median(statistics.median(r["phases"][phase]) for r in document["ranks"])


def twin_matches(case, twin):
    """Same workload; splitstep without an optimizer_impl is held against PyTorch's default."""
    impl_matches = (twin["optimizer_impl"] == case.optimizer_impl if case.optimizer_impl
                    else twin.get("optimizer_impl_default", False))
    return (twin["model"] == case.model and twin["optimizer"] == case.optimizer and
            twin["parameters"] == case.parameters and impl_matches)


def find_twin(case, twins, notes):
    kind = twin_kind(case.mode, case.world_size)
    found = [t for t in twins
             if not t[1].get("optimizer_only") and twin_matches(case, t[1])
             and t[1]["precision"] == case.precision and t[1]["input"] == case.input
             and ("no_sync" if t[1]["no_sync"] else "ddp" if t[1]["ddp"] else "alone",
                  t[1]["world_size"]) == kind]
    if len(found) > 1:
        notes.append(f"{case.model} {case.precision} {case.mode}: {len(found)} twin runs fit; "
                     f"using {found[-1][0]}")
    return found[-1] if found else None


def compare(cases, twins, tolerance):
    """Rows of (case, row label, splitstep s, twin s, twin file, ratio, verdict), and notes."""
    rows, notes = [], []
    for case in cases:
        label = f"{case.model} {case.precision} {case.mode} ({case.world_size} rank(s))"
        if twin_kind(case.mode, case.world_size) is None:
            notes.append(f"{label}: PyTorch DDP has no such mode; not compared")
            continue
        twin = find_twin(case, twins, notes)
        if twin is None:
            notes.append(f"{label}: no twin run of the same model, precision, optimizer, input, "
                         f"parameter count and mode")
            continue
        path, document = twin
        syncs = "sync" in case.series
        for row in ROWS:
            names = ("backward", "sync") if row == "backward" and syncs else (row,)
            rows.append((case, " + ".join(names), splitstep_seconds(case, names),
                         twin_seconds(document, row), path))
        alone = [t for t in twins if t[1].get("optimizer_only") and twin_matches(case, t[1])]
        if alone and case.precision != "fp16":
            rows.append((case, "optimizer alone", splitstep_seconds(case, ("optimizer",)),
                         twin_seconds(alone[-1][1], "optimizer"), alone[-1][0]))
    ratios = [row[2] / row[3] if row[3] > 0 else float("inf") for row in rows]
    return [row + (r, verdict(r, tolerance)) for row, r in zip(rows, ratios)], notes


def verdict(ratio, tolerance):
    if abs(ratio - 1) <= tolerance:
        return "ok"
    return "slower" if ratio > 1 else "faster"


def format_table(header, rows, align):
    """Plain columns; `align` has one letter per column: l(eft) for text, r(ight) for numbers."""
    cells = [header] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) if a == "l" else c.rjust(w)
                               for c, w, a in zip(r, widths, align)).rstrip() for r in cells)


def report(rows, notes, tolerance):
    lines = []
    groups = {}
    for row in rows:
        groups.setdefault((row[0].model, row[0].precision), []).append(row)
    for (model, precision), group in groups.items():
        lines.append(f"{model} {precision}: splitstep / PyTorch eager twin, medians "
                     f"(ok: within {tolerance * 100:g}%)")
        table = [[case.mode, case.world_size, phase, f"{s * 1e3:.3f}", f"{t * 1e3:.3f}",
                  f"{r:.3f}", v] for case, phase, s, t, _, r, v in group]
        lines.append(format_table(["mode", "ranks", "phase", "splitstep_ms", "twin_ms", "ratio",
                                   "verdict"], table, "lrlrrrl"))
        lines.append("")
    within = sum(1 for row in rows if row[-1] == "ok")
    lines.append(f"{within} of {len(rows)} rows within {tolerance * 100:g}%")
    lines.extend(f"note: {n}" for n in notes)
    return "\n".join(lines)


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["model", "precision", "mode", "world_size", "phase", "splitstep_s",
                      "twin_s", "ratio", "verdict", "splitstep_file", "twin_file"])
        for case, phase, s, t, twin_file, r, v in rows:
            out.writerow([case.model, case.precision, case.mode, case.world_size, phase, s, t,
                          r, v, case.file, twin_file])


def tolerance(text):
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a fraction (0.02) or percentage (2%)")
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' is negative")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="splitstep results and step_twin JSON files")
    parser.add_argument("--tolerance", type=tolerance, default=0.02,
                        help="largest |ratio - 1| counted as ok: 0.02 or 2%% (default 2%%)")
    parser.add_argument("--csv", help="also write the rows to this CSV file")
    args = parser.parse_args(argv)
    try:
        cases, twins = [], []
        for path in args.files:
            document = read(path)
            if isinstance(document, dict) and document.get("schema") in SCHEMAS:
                cases.extend(splitstep_cases(path, document))
            elif isinstance(document, dict) and document.get("tool") == "step_twin":
                check_twin(path, document)
                twins.append((path, document))
            else:
                raise Malformed(f"{path}: neither a splitstep results file nor a step_twin file")
        if not cases:
            raise Malformed("no splitstep step case among the inputs")
        if not twins:
            raise Malformed("no step_twin file among the inputs")
        rows, notes = compare(cases, twins, args.tolerance)
    except Malformed as e:
        print(f"parity: {e}", file=sys.stderr)
        return 2
    print(report(rows, notes, args.tolerance))
    if args.csv:
        write_csv(args.csv, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
