#!/usr/bin/env python3
"""splitstep's step phases beside the same step in PyTorch eager (`splitstep-analysis eager`):
the library's own model for a zoo model, a twin for splitstep's others; as ratios, with
parameter counts and kernel lists side by side.

  parity.py splitstep-np1.json splitstep-np2.json twin-*.json [--tolerance 2%] [--csv out.csv]
  parity.py splitstep.json library-*.json --kernels [--strict]
  parity.py builtin.json library-*.json exported.json --exported exported.json=builtin.json

Files are told apart by their content: splitstep's results (docs/results-schema.md) and
the eager command's JSON (`"tool": "splitstep-analysis eager"`, or `"step_twin"` as files
written before it had its name say; `"reference": "library"` or `"twin"`). Each splitstep
step case is paired with the run of the same model, precision, optimizer, input and shape (a
library model's shape options against splitstep's plan; a twin's by its parameter count) that
stands for its mode:

  single, or none on one rank   the twin alone (no --ddp)
  overlap                       the twin under --ddp, on as many ranks
  none (several ranks)          the twin under --ddp --no-sync, on as many ranks

Rows: forward, backward, optimizer and the whole step; in modes that sync, splitstep's backward
row holds backward + sync, as DDP's backward holds its wait for the buckets. A twin run with
--optimizer-only adds an `optimizer alone` row (not in fp16, whose optimizer phase also
unscales). Times are the median over ranks of each rank's median. Each pair also shows both
parameter counts and, with --kernels, both profiles' kernel lists (names and calls per step;
splitstep's trace from its plan's torch-profile folder, the other's as its JSON names it).
An exported model (`splitstep step --model-file`, model `exported`) exported from the library
model a built-in case's twin runs (exported_zoo.py) is named with `--exported EXPORTED=BUILTIN`:
each of EXPORTED's cases pairs with BUILTIN's case of the same precision, mode, ranks, optimizer
and input, and with the run that case pairs with; it is held to both. Its graph holds the loss,
so its forward phase holds the loss and its loss phase is empty: its first row adds forward and
loss on both sides (`forward + loss`).

Malformed input exits 2; with --strict, a row outside the tolerance, a case without a partner,
or parameter counts or kernel lists that differ exit 1.
"""
import argparse
import csv
import os
import statistics
import sys
from typing import NamedTuple

import eager_support  # noqa: F401 (the package on sys.path)
import kernel_table
from splitstep_analysis import eager_results, plans, schema
from splitstep_analysis.eager_results import phase_seconds
from splitstep_analysis.export import DECISION_SCOPE

ROWS = ("forward", "backward", "optimizer", "step")
# Steps splitstep's --torch-profile traces (harness/suites/StepSuite.cpp, kProfiledSteps).
SPLITSTEP_PROFILED_STEPS = 3


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
    plan: dict  # the run's options, as canonical text
    stands_for: str = ""  # an exported case: the built-in model it was exported as


class Row(NamedTuple):
    case: Case
    phase: str
    splitstep_s: float
    reference_s: float
    reference_file: str
    reference: dict  # the eager command's document
    ratio: float
    verdict: str


class Pair(NamedTuple):
    """A splitstep case and the run it is held to, with what the rows do not say."""

    case: Case
    reference_file: str
    reference: dict
    parameters_equal: bool
    kernels: object  # None: not compared; else (verdict, lines)
    # Each side's kernel time per step, in seconds, where both profiles were read; else None.
    kernel_seconds: object


def twin_kind(mode, world_size):
    """Which twin run stands for a splitstep mode; None where PyTorch has none (sequential)."""
    if mode == "single" or (mode == "none" and world_size == 1):
        return ("alone", 1)
    if mode == "overlap":
        return ("ddp", world_size)
    if mode == "none":
        return ("no_sync", world_size)
    return None


def splitstep_cases(path, document):
    """The step cases of a results document (as read from `path`; schema v1 or v2, read by the
    package into one shape: each case's typed fields)."""
    try:
        document = schema.normalise(document, path)
    except schema.ResultsError as e:
        raise Malformed(str(e))
    grouped = {}
    try:
        for case in document["cases"]:
            # Detail series (a bucket's timeline) have no counterpart in the twin, nor has a
            # graphed step (--step-graphs, fields "launch": "graph"): the twin launches eagerly.
            if case["suite"] != "step" or case["skipped"] or case.get("detail", False):
                continue
            if case["fields"].get("launch") == "graph":
                continue
            grouped.setdefault(case["case"], []).append(case)
        cases = []
        for name, entries in grouped.items():
            missing = set(ROWS) - {entry["series"] for entry in entries}
            if missing:
                raise ValueError(f"case '{name}' lacks the series {', '.join(sorted(missing))}")
            fields = entries[0]["fields"]
            cases.append(Case(path, fields["model"], fields["precision"], fields["mode"],
                              fields["world_size"], fields["optimizer"],
                              fields.get("optimizer_impl", ""), fields["input"],
                              fields["parameters"],
                              {entry["series"]: entry for entry in entries},
                              plans.plan(document)))
        return cases
    except (KeyError, TypeError, ValueError) as e:
        raise Malformed(f"{path}: not a splitstep step result ({type(e).__name__}: {e})")


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


def same_shape(case, shape):
    """Whether splitstep's plan ran the library model's shape: every shape option, by value."""
    return all(plans.plan_integer(case.plan, name) == value for name, value in shape.items())


def twin_matches(case, twin):
    """Same workload; splitstep without an optimizer_impl is held against PyTorch's default. A
    library model's shape is held to splitstep's plan, so that its parameter count can be shown
    beside splitstep's; a twin's is known by its parameter count."""
    impl_matches = (twin["optimizer_impl"] == case.optimizer_impl if case.optimizer_impl
                    else twin.get("optimizer_impl_default", False))
    shape_matches = (same_shape(case, twin["shape"]) if twin.get("reference") == "library"
                     else twin["parameters"] == case.parameters)
    return (twin["model"] == case.model and twin["optimizer"] == case.optimizer and
            shape_matches and impl_matches)


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


def splitstep_trace(case):
    """Where splitstep's --torch-profile wrote this case's rank-0 trace (TorchProfile.cpp)."""
    folder = case.plan.get("torch-profile", "")
    if not folder:
        return None
    return os.path.join(folder, f"splitstep-{case.model}-{case.precision}-{case.mode}-rank0.json")


def kernel_totals(a, b):
    """Each side's kernel time per step, in seconds."""
    return tuple(sum(k.microseconds for k in side.values()) * 1e-6 for side in (a, b))


def busy_line(totals, steps, label):
    """Each side's kernel time per step and the share of its step it fills. A step much longer
    than its kernels waits on its host (Python's, for the library): equal kernels with a
    different step time are a host's difference, not the GPU work's."""
    shares = [f"{t / s * 100:.0f}% of its step" if s > 0 else "no step time"
              for t, s in zip(totals, steps)]
    return (f"kernel time per step: splitstep {totals[0] * 1e3:.3f} ms ({shares[0]}), "
            f"{label} {totals[1] * 1e3:.3f} ms ({shares[1]})")


# A side whose kernels fill less of its step than this is host-bound there: its step time is its
# host's (Python's launches for the library, the C++ launches for splitstep), and a whole-step
# ratio says nothing of the GPU work. splitstep's own host-bound rule uses the same share
# (kHostBoundBusy, harness/derived/StepAnalysis.hpp).
HOST_BOUND_BUSY = 0.90
# The kernel time per step is the GPU work both sides launch: held within 1% (or --tolerance,
# where tighter), whatever either side's host adds around it.
KERNEL_TOLERANCE = 0.01


def host_bound(kernel_seconds, steps, label):
    """'' where neither side is host-bound; else which side is and by how much."""
    if kernel_seconds is None:
        return ""
    bound = [f"{side} host-bound, kernels {t / s * 100:.0f}% of its step"
             for side, t, s in zip(("splitstep", label), kernel_seconds, steps)
             if s > 0 and t > 0 and t / s < HOST_BOUND_BUSY]
    return "; ".join(bound)


def compare_kernels(case, reference, steps):
    """((verdict, lines), kernel seconds) of both profiles' kernel lists: `equal` when every
    kernel ran as many times per step on both sides, `differ` otherwise, `not profiled` without
    both traces, `no GPU kernels` where neither ran one (a CPU run); each side's kernel time per
    step where both were read, else None. `steps`: both sides' step medians, in seconds, for the
    share of each step its kernels fill."""
    ours, theirs = splitstep_trace(case), reference.get("trace")
    missing = [p for p in (ours, theirs) if not p or not os.path.exists(p)]
    if missing:
        return ("not profiled", [f"no trace {p or '(none named)'}" for p in missing]), None
    try:
        a = kernel_table.load_kernels(ours, SPLITSTEP_PROFILED_STEPS)
        b = kernel_table.load_kernels(theirs, reference["profiled_steps"])
    except kernel_table.TraceError as e:
        raise Malformed(str(e))
    if not a and not b:
        return ("no GPU kernels", []), None
    label = reference.get("reference", "twin")
    totals = kernel_totals(a, b)
    busy = busy_line(totals, steps, label)
    differences = kernel_table.list_differences(a, b)
    explained = []
    if case.stands_for:
        # An exported graph holds no host read: what the reference launched to make
        # transformers' mask decisions, which the export made once (export.EagerMaskDecisions),
        # it may lack, named.
        left_out = kernel_table.load_kernels(theirs, reference["profiled_steps"],
                                             within=DECISION_SCOPE)
        remaining = kernel_table.beyond_scopes(differences, left_out)
        explained = [
            f"  {x:>7.2f} {y:>7.2f}  {kernel_table.shorten(name, 100)}"
            for name, x, y in differences if (name, x, y) not in remaining]
        if explained:
            explained.insert(0, f"{len(explained)} kernel names only {label} launches, inside "
                                f"transformers' mask decisions (no graph holds their host read):")
        differences = remaining
    if not differences:
        return ("equal", [f"{len(a)} kernel names, the same calls per step", busy]
                + explained), totals
    lines = [busy] + explained + [
        f"{len(differences)} of {len(set(a) | set(b))} kernel names differ in calls "
        f"per step (splitstep, {label}):"]
    lines += [f"  {x:>7.2f} {y:>7.2f}  {kernel_table.shorten(name, 100)}"
              for name, x, y in differences]
    return ("differ", lines), totals


def paired(case, path, document, steps, kernels):
    """`case` and the run it is held to; both profiles' kernel lists compared where `kernels`.
    `steps`: both sides' step medians, in seconds."""
    compared, kernel_seconds = (compare_kernels(case, document, steps) if kernels
                                else (None, None))
    return Pair(case, path, document, document["parameters"] == case.parameters, compared,
                kernel_seconds)


def judged_rows(pair, timed, steps, tolerance):
    """The rows of one pair: its kernel time per step, judged within KERNEL_TOLERANCE where both
    profiles were read, and its time rows, each judged unless a side is host-bound there, where
    the verdict says which side and by how much instead of "faster" or "slower"."""
    rows = []
    bound = host_bound(pair.kernel_seconds, steps, reference_kind(pair.reference))
    if pair.kernel_seconds is not None:
        s, t = pair.kernel_seconds
        ratio = s / t if t > 0 else float("inf")
        rows.append(Row(pair.case, "kernels", s, t, pair.reference_file, pair.reference, ratio,
                        verdict(ratio, min(tolerance, KERNEL_TOLERANCE))))
    for phase, s, t, file, doc in timed:
        ratio = s / t if t > 0 else float("inf")
        rows.append(Row(pair.case, phase, s, t, file, doc, ratio,
                        f"not judged: {bound}" if bound else verdict(ratio, tolerance)))
    return rows


def compare(cases, twins, tolerance, kernels=False):
    """Rows (one per phase of each pair), pairs, and notes."""
    rows, pairs, notes = [], [], []
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
        steps = (splitstep_seconds(case, ("step",)), phase_seconds(document, "step"))
        pair = paired(case, path, document, steps, kernels)
        pairs.append(pair)
        syncs = "sync" in case.series
        timed = []
        for row in ROWS:
            names = ("backward", "sync") if row == "backward" and syncs else (row,)
            timed.append((" + ".join(names), splitstep_seconds(case, names),
                          phase_seconds(document, row), path, document))
        alone = [t for t in twins if t[1].get("optimizer_only") and twin_matches(case, t[1])]
        if alone and case.precision != "fp16":
            timed.append(("optimizer alone", splitstep_seconds(case, ("optimizer",)),
                          phase_seconds(alone[-1][1], "optimizer"), alone[-1][0], alone[-1][1]))
        rows += judged_rows(pair, timed, steps, tolerance)
    return rows, pairs, notes


def same_run(a, b):
    """Cases of the same precision, mode, ranks, optimizer and input."""
    return (a.precision, a.mode, a.world_size, a.optimizer, a.optimizer_impl, a.input) == (
        b.precision, b.mode, b.world_size, b.optimizer, b.optimizer_impl, b.input)


def builtin_reference(builtin, shape):
    """A built-in case as the reference of an exported one, with what the report reads of a
    reference: its kind, parameter count, shape (its twin's) and trace."""
    return {"reference": "built-in", "parameters": builtin.parameters, "shape": shape,
            "trace": splitstep_trace(builtin), "profiled_steps": SPLITSTEP_PROFILED_STEPS}


def compare_exported(exported, cases, twins, tolerance, kernels):
    """Rows, pairs and notes of each exported case, given with the file of the built-in cases it
    was exported from: against the built-in case of the same run and against that case's twin
    run. The first row adds forward and loss on both sides: the exported graph holds the loss."""
    rows, pairs, notes = [], [], []
    for case, source in exported:
        label = f"exported {case.precision} {case.mode} ({case.world_size} rank(s))"
        builtin = next((c for c in cases if c.file == source and same_run(c, case)), None)
        if builtin is None:
            notes.append(f"{label}: no case of the same run in {source}")
            continue
        case = case._replace(stands_for=builtin.model)
        twin = find_twin(builtin, twins, notes)
        if twin is None:
            notes.append(f"{label}: {builtin.model}'s case has no twin run")
        syncs = "sync" in case.series
        names = [("forward", "loss"), ("backward", "sync") if syncs else ("backward",),
                 ("optimizer",), ("step",)]
        references = []
        if twin:
            # The twin has no sync phase: under DDP its backward holds the wait for the buckets.
            references.append((*twin, lambda n, d=twin[1]: phase_seconds(
                d, tuple(name for name in n if name != "sync"))))
        references.append((builtin.file,
                           builtin_reference(builtin, twin[1]["shape"] if twin else {}),
                           lambda n: splitstep_seconds(builtin, n)))
        for path, document, seconds in references:
            steps = (splitstep_seconds(case, ("step",)), seconds(("step",)))
            pair = paired(case, path, document, steps, kernels)
            pairs.append(pair)
            timed = [(" + ".join(row), splitstep_seconds(case, row), seconds(row), path,
                      document) for row in names]
            rows += judged_rows(pair, timed, steps, tolerance)
    return rows, pairs, notes


def model_label(case):
    return f"exported ({case.stands_for})" if case.stands_for else case.model


def shape_label(document):
    return " ".join(f"{name}={value}" for name, value in document.get("shape", {}).items())


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


def reference_kind(document):
    return document.get("reference", "twin")


def group_key(case, document):
    return (model_label(case), case.precision, shape_label(document), reference_kind(document))


def report(rows, pairs, notes, tolerance):
    lines = []
    groups = {}
    for row in rows:
        groups.setdefault(group_key(row.case, row.reference), []).append(row)
    pairs_of = {}
    for pair in pairs:
        pairs_of.setdefault(group_key(pair.case, pair.reference), []).append(pair)
    for key, group in groups.items():
        model, precision, shape, kind = key
        kernels_bar = (f", kernel time {min(tolerance, KERNEL_TOLERANCE) * 100:g}%"
                       if any(r.phase == "kernels" for r in group) else "")
        what = {"library": "the library's model", "built-in": "splitstep's built-in model"}.get(
            kind, "PyTorch eager twin")
        lines.append(f"{model} {precision}{' at ' + shape if shape else ''}: splitstep / {what}, "
                     f"medians (ok: within {tolerance * 100:g}%{kernels_bar})")
        table = [[r.case.mode, r.case.world_size, r.phase, f"{r.splitstep_s * 1e3:.3f}",
                  f"{r.reference_s * 1e3:.3f}", f"{r.ratio:.3f}", r.verdict] for r in group]
        lines.append(format_table(["mode", "ranks", "phase", "splitstep_ms", f"{kind}_ms",
                                   "ratio", "verdict"], table, "lrlrrrl"))
        for pair in pairs_of.get(key, []):
            lines.append(f"parameters ({pair.case.mode}): splitstep {pair.case.parameters:,}, "
                         f"{kind} {pair.reference['parameters']:,}: "
                         f"{'equal' if pair.parameters_equal else 'differ: not the same model'}")
            if pair.kernels is not None:
                verdict_text, detail = pair.kernels
                lines.append(f"kernels ({pair.case.mode}): {verdict_text}")
                lines.extend(f"  {line}" for line in detail)
        lines.append("")
    judged = [row for row in rows if not row.verdict.startswith("not judged")]
    within = sum(1 for row in judged if row.verdict == "ok")
    lines.append(f"{within} of {len(judged)} rows within {tolerance * 100:g}%"
                 + (f"; {len(rows) - len(judged)} not judged (a side host-bound: its step is "
                    f"its host's, its kernels are held instead)" if len(judged) < len(rows)
                    else ""))
    equal = sum(1 for pair in pairs if pair.parameters_equal)
    lines.append(f"parameter counts equal in {equal} of {len(pairs)} pairs")
    compared = [pair for pair in pairs if pair.kernels is not None]
    if compared:
        same = sum(1 for pair in compared if pair.kernels[0] == "equal")
        lines.append(f"kernel lists equal in {same} of {len(compared)} pairs")
    lines.extend(f"note: {n}" for n in notes)
    return "\n".join(lines)


def passes(rows, pairs, wanted):
    """--strict: `wanted` pairs (each case's, two of each exported case's), every judged row ok
    (the kernel time per step among them; a time row where a side is host-bound is not judged),
    counts equal, every kernel list compared equal."""
    return (len(pairs) == wanted and
            all(row.verdict == "ok" or row.verdict.startswith("not judged") for row in rows) and
            all(pair.parameters_equal for pair in pairs) and
            all(pair.kernels is None or pair.kernels[0] == "equal" for pair in pairs))


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["model", "precision", "shape", "mode", "world_size", "phase", "splitstep_s",
                      "reference_s", "ratio", "verdict", "reference", "splitstep_parameters",
                      "reference_parameters", "splitstep_file", "reference_file"])
        for r in rows:
            out.writerow([model_label(r.case), r.case.precision, shape_label(r.reference),
                          r.case.mode, r.case.world_size, r.phase, r.splitstep_s,
                          r.reference_s, r.ratio, r.verdict, reference_kind(r.reference),
                          r.case.parameters,
                          r.reference["parameters"], r.case.file, r.reference_file])


def tolerance(text):
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a fraction (0.02) or percentage (2%)")
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' is negative")
    return value


def exported_sources(declared, files):
    """--exported's EXPORTED=BUILTIN declarations: BUILTIN by EXPORTED, both among the inputs."""
    sources = {}
    for text in declared:
        path, sep, source = text.partition("=")
        if not sep or not path or not source:
            raise Malformed(f"--exported: '{text}' is not EXPORTED=BUILTIN")
        for name in (path, source):
            if name not in files:
                raise Malformed(f"--exported: {name} is not among the input files")
        if path == source or path in sources:
            raise Malformed(f"--exported: {path} declared twice or as its own source")
        sources[path] = source
    if set(sources) & set(sources.values()):
        raise Malformed("--exported: a file is both an exported run and a built-in one")
    return sources


def exported_cases(path, cases, source):
    """An exported run's cases, each with the file of the built-in run it stands beside."""
    others = sorted({c.model for c in cases} - {"exported"})
    if others:
        raise Malformed(f"--exported: {path} holds cases of {', '.join(others)}, not of an "
                        f"exported model")
    return [(case, source) for case in cases]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="splitstep results and splitstep-analysis eager JSON files")
    parser.add_argument("--tolerance", type=tolerance, default=0.02,
                        help="largest |ratio - 1| counted as ok: 0.02 or 2%% (default 2%%)")
    parser.add_argument("--csv", help="also write the rows to this CSV file")
    parser.add_argument("--kernels", action="store_true",
                        help="also hold both profiles' kernel lists to each other")
    parser.add_argument("--exported", action="append", default=[], metavar="EXPORTED=BUILTIN",
                        help="EXPORTED's cases (model exported) were exported from the model of "
                             "BUILTIN's: hold them to its cases and to their twin runs; both "
                             "files among the inputs")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 unless every case is paired, every judged row ok (with "
                             "--kernels, the kernel time per step; not a time row where a side "
                             "is host-bound), and parameter counts and kernel lists equal")
    args = parser.parse_args(argv)
    try:
        sources = exported_sources(args.exported, args.files)
        cases, twins, exported = [], [], []
        for path in args.files:
            document = schema.read_json(path, Malformed)
            if isinstance(document, dict) and document.get("schema") in schema.SCHEMAS:
                found = splitstep_cases(path, document)
                if path in sources:
                    exported.extend(exported_cases(path, found, sources[path]))
                else:
                    cases.extend(found)
            elif eager_results.is_eager(document):
                twins.append((path, eager_results.checked(document, path, Malformed)))
            else:
                raise Malformed(f"{path}: neither a splitstep results file nor a file of splitstep-analysis eager")
        if not cases:
            raise Malformed("no splitstep step case among the inputs"
                            + (" besides the exported ones" if exported else ""))
        if not twins:
            raise Malformed("no file of splitstep-analysis eager among the inputs")
        rows, pairs, notes = compare(cases, twins, args.tolerance, args.kernels)
        more = compare_exported(exported, cases, twins, args.tolerance, args.kernels)
        rows, pairs, notes = rows + more[0], pairs + more[1], notes + more[2]
    except Malformed as e:
        print(f"parity: {e}", file=sys.stderr)
        return 2
    print(report(rows, pairs, notes, args.tolerance))
    if args.csv:
        write_csv(args.csv, rows)
    wanted = len(cases) + 2 * len(exported)
    return 1 if args.strict and not passes(rows, pairs, wanted) else 0


if __name__ == "__main__":
    sys.exit(main())
