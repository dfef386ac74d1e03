"""Compare splitstep results of two or more runs: which cases got faster, slower or stayed the same.

Each side of a comparison (the baseline, and each candidate) is one results file or several runs
of the same configuration. Cases are matched by (suite, case, series), and with --per-rank also
by rank. Each match is decided on the samples (`ranks[].values`, seconds per execution), not on
the medians alone:

  slower   the Mann-Whitney U test finds the two sample sets different (p < alpha) and the whole
           (1 - alpha) bootstrap confidence interval of candidate median / baseline median lies
           above 1 + threshold;
  faster   p < alpha and the interval lies below 1 - threshold;
  same     the interval lies within 1 +- threshold;
  unclear  anything else, or too few samples for the test to reach p < alpha at all.

The median of a run is the one the report prints: the median over ranks of each rank's median;
that of a side is the median over its runs of their medians. The rank test pools all samples of
a side. The bootstrap (2000 resamples by default, with a fixed seed per case) follows how the
samples came about, so the interval is that of the reported figure: each replicate draws a
side's runs with replacement, and then each rank of each drawn run is resampled in contiguous
blocks of its time-ordered samples, because successive samples of a run are not independent
(clocks and the GPU's state hold for stretches of a run). A shift fixed when a run starts moves
all of its samples alike: only the spread between several runs of a side can show it, so a
regression gate should give two or more runs a side. Rates (TFLOP/s, busbw GB/s) are work over
these times: a time ratio r is a rate ratio 1/r.

With --consistency the question is simpler, and asked of the medians alone: for every case
measured in both files (wholes only: a step's phases follow their step) whose spread, the
largest std/mean over ranks, is below --spread in both runs, do the across-rank medians agree
within --within? One line per case and a last line with how many agree.

Before the table, the output lists what differs between the runs: the plan's options, the schema
revision, the versions, the GPUs, the rank count and the environment (less the launcher's per-job
variables). A comparison that makes no sense is refused (exit status 2, one line): runs that
share no suite, or collectives and the step measured on different rank counts (--allow-ranks
compares them anyway). --suite and --case pick the cases; --markdown and --junit write the
comparison for a CI job besides the text.

Exit status: 0 when no case is slower, 1 when one is (or, with --fail-on-unclear, when one is
unclear; with --consistency, when a judged case is outside --within), 2 for a malformed file or
bad options.
"""
import math
import zlib

import pandas as pd

from .cli import option_type
from .compare_consistency import consistency, medians_by_key
from .compare_formats import junit, markdown
from .compare_stats import SEED, VERDICTS, _join, _label, decide
from .compare_text import report
from .differences import (device_warnings, parse_pattern, parse_suites, refusal,
                          run_differences, select)
from .schema import BadInput, read_results


# --- matching the files ---------------------------------------------------------------------

def _entries(document, per_rank):
    """key -> {"skipped": bool, "note": str, "ranks": [values, ...]} in the file's order."""
    entries = {}
    for case in document["cases"]:
        base = (case["suite"], case["case"], case["series"])
        skipped = case.get("skipped", False)
        note = "; ".join(case.get("notes", [])) if skipped else ""
        ranks = [(r["rank"], r.get("values", [])) for r in case.get("ranks", [])]
        if per_rank and not skipped:
            for rank, values in ranks:
                entries[base + (rank,)] = {"skipped": False, "note": "", "ranks": [values]}
        else:
            entries[base + (None,)] = {"skipped": skipped, "note": note,
                                       "ranks": [values for _, values in ranks]}
    return entries


def _seed(key):
    text = "\0".join("" if part is None else str(part) for part in key)
    return [SEED, zlib.crc32(text.encode())]


def _as_runs(side):
    """A side of a comparison as a list of runs: one document (or path), or a list of them."""
    return list(side) if isinstance(side, (list, tuple)) else [side]


def _gaps(found):
    """Why a case that both sides hold cannot be compared: the runs that skipped it (with the
    first reason given) and those that lack it; "" when every run measured it. `found` maps a
    side to its runs' entries for the case (None where a run lacks it)."""
    skipped, missing, reason = [], [], ""
    for side, entries in found.items():
        for index, entry in enumerate(entries):
            label = _label(side, index, len(entries))
            if entry is None:
                missing.append(label)
            elif entry["skipped"]:
                skipped.append(label)
                reason = reason or entry["note"]
    parts = []
    if skipped:
        parts.append(f"skipped in {_join(skipped)}" + (f": {reason}" if reason else ""))
    if missing:
        parts.append(f"not in {_join(missing)}")
    return "; ".join(parts)


def compare_documents(baseline, candidate, threshold=0.05, alpha=0.01, per_rank=False,
                      resamples=2000):
    """One row per case (per case and rank with per_rank) of any run, as a DataFrame: suite,
    case, series, rank (None unless per_rank), runs_baseline and runs_candidate (the runs of
    each side that measured it), the fields of `decide`, and verdict `skipped`,
    `only in baseline` or `only in candidate` for cases not compared. `baseline` and
    `candidate` are each a document or a list of documents: runs of one configuration. A case
    is compared when every run of both sides measured it."""
    sides = {"baseline": [_entries(document, per_rank) for document in _as_runs(baseline)],
             "candidate": [_entries(document, per_rank) for document in _as_runs(candidate)]}
    keys = list(dict.fromkeys(key for runs in sides.values() for entries in runs
                              for key in entries))
    if per_rank:
        # A case skipped in one run stands for each rank that another run measured.
        measured = {key[:3] for key in keys if key[3] is not None}
        keys = [key for key in keys if key[3] is not None or key[:3] not in measured]
    rows = []
    for key in keys:
        row = dict(zip(("suite", "case", "series", "rank"), key))
        # With per_rank, a run that skipped the case entered it once, without a rank.
        found = {side: [entries.get(key) or entries.get(key[:3] + (None,)) for entries in runs]
                 for side, runs in sides.items()}
        row.update({f"runs_{side}": sum(entry is not None and not entry["skipped"]
                                        for entry in entries)
                    for side, entries in found.items()})
        absent = [side for side, entries in found.items()
                  if all(entry is None for entry in entries)]
        if absent:
            row.update(verdict="only in candidate" if absent == ["baseline"] else
                       "only in baseline", note="")
        elif gaps := _gaps(found):
            row.update(verdict="skipped", note=gaps)
        else:
            runs = {side: [entry["ranks"] for entry in entries]
                    for side, entries in found.items()}
            row.update(decide(runs["baseline"], runs["candidate"], threshold, alpha, resamples,
                              _seed(key)))
        rows.append(row)
    columns = ["suite", "case", "series", "rank", "runs_baseline", "runs_candidate",
               "n_baseline", "n_candidate", "baseline_median_s", "candidate_median_s", "ratio",
               "ci_low", "ci_high", "p_value", "verdict", "note"]
    return pd.DataFrame(rows).reindex(columns=columns)


def compare_files(baseline_path, candidate_path, **options):
    """compare_documents over files: each side one path or a list of paths (raises ResultsError
    for a malformed one)."""
    baseline, candidate = ([read_results(path) for path in _as_runs(side)]
                           for side in (baseline_path, candidate_path))
    return compare_documents(baseline, candidate, **options)


# --- the command ----------------------------------------------------------------------------

def parse_threshold(text):
    """'5%' or '5' -> 0.05: a percentage, the sign optional, above 0 and below 100."""
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        value = math.nan
    if not 0 < value < 100:
        raise ValueError(f"'{text}' is not a percentage above 0 and below 100 (e.g. 5%)")
    return value / 100.0


def parse_alpha(text):
    """'0.01' -> 0.01: a probability between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < 1:
        raise ValueError(f"'{text}' is not a probability between 0 and 1")
    return value


def parse_run_list(text):
    """'a.json' or 'a1.json,a2.json' -> the paths: runs of one configuration."""
    paths = text.split(",")
    if not all(paths):
        raise ValueError(f"'{text}' has an empty element: give one file or runs joined by "
                         f"commas (A1.json,A2.json)")
    if len(set(paths)) < len(paths):
        raise ValueError(f"'{text}' names a file twice: each run counts once")
    return paths


def parse_resamples(text):
    if not text.isdigit() or int(text) < 100:
        raise ValueError(f"'{text}' is not a whole number of at least 100")
    return int(text)


def parse_fraction(text):
    """'0.02' -> 0.02: above 0 and below 1."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < 1:
        raise ValueError(f"'{text}' is not a fraction above 0 and below 1 (e.g. 0.02)")
    return value


def run_consistency(args):
    if len(args.baseline) != 1 or len(args.candidates) != 1 or len(args.candidates[0]) != 1:
        raise BadInput("--consistency compares two files: one baseline, one candidate")
    paths = (args.baseline[0], args.candidates[0][0])
    first, second = (medians_by_key(read_results(path), path) for path in paths)
    rows = consistency(first, second, args.spread, args.within)
    print(f"{'suite':<10} {'case':<28} {'median 1':>12} {'median 2':>12} {'2/1':>8} "
          f"{'spread 1':>9} {'spread 2':>9}  verdict")
    for suite, case, m1, m2, ratio, s1, s2, verdict in rows:
        print(f"{suite:<10} {case:<28} {m1:12.6g} {m2:12.6g} {ratio:8.4f} {s1:9.2%} {s2:9.2%}  "
              f"{verdict}")
    judged = [row for row in rows if row[-1] != "noisy"]
    agreeing = [row for row in judged if row[-1] == "ok"]
    print(f"{len(agreeing)} of {len(judged)} cases with spread below {args.spread:.0%} agree "
          f"within {args.within:.0%} ({len(rows) - len(judged)} noisier cases not judged)")
    return 1 if len(agreeing) < len(judged) else 0


def add_arguments(parser):
    parser.add_argument("baseline", type=option_type(parse_run_list),
                        help="the reference's results file, or several runs of its "
                             "configuration joined by commas (a1.json,a2.json)")
    parser.add_argument("candidates", nargs="+", metavar="candidate",
                        type=option_type(parse_run_list),
                        help="results file of the run(s) to judge against it, each again one "
                             "file or runs joined by commas")
    parser.add_argument("--threshold", type=option_type(parse_threshold), default=0.05,
                        help="the smallest change that matters, in percent (default 5%%)")
    parser.add_argument("--alpha", type=option_type(parse_alpha), default=0.01,
                        help="significance level of the test; the interval has confidence "
                             "1 - alpha (default 0.01)")
    parser.add_argument("--per-rank", action="store_true",
                        help="compare each rank's samples on their own instead of per case")
    parser.add_argument("--resamples", type=option_type(parse_resamples), default=2000,
                        help="bootstrap resamples per case (default 2000)")
    parser.add_argument("--fail-on-unclear", action="store_true",
                        help="exit 1 also when a case is unclear")
    parser.add_argument("--csv", metavar="OUT", help="write every row, for every candidate")
    parser.add_argument("--markdown", metavar="OUT",
                        help="write what differs and the table as markdown (a job summary)")
    parser.add_argument("--junit", metavar="OUT",
                        help="write JUnit XML: a test per case, a slower case a failure")
    parser.add_argument("--suite", type=option_type(parse_suites),
                        help="compare only these suites (comma-separated names)")
    parser.add_argument("--case", type=option_type(parse_pattern), metavar="PATTERN",
                        help="compare only cases whose name this regular expression finds "
                             "(a plain word: a substring)")
    parser.add_argument("--allow-ranks", action="store_true",
                        help="compare collectives and the step across rank counts all the same")
    parser.add_argument("--consistency", action="store_true",
                        help="instead: do the medians of two files agree, where both are quiet")
    parser.add_argument("--spread", type=option_type(parse_fraction), default=0.02,
                        help="--consistency: judge cases whose std/mean is below this in both "
                             "runs (default 0.02)")
    parser.add_argument("--within", type=option_type(parse_fraction), default=0.01,
                        help="--consistency: the largest relative difference of the medians "
                             "that agrees (default 0.01)")


def run(args):
    if args.consistency:
        return run_consistency(args)
    pattern = args.case

    def side(paths):
        return [(path, select(read_results(path), args.suite, pattern)) for path in paths]

    baseline = side(args.baseline)
    candidates = [side(paths) for paths in args.candidates]
    for runs in [baseline] + candidates:
        for path, document in runs:
            if not document["cases"] and (args.suite or pattern):
                raise BadInput(f"{path}: no case matches --suite/--case")
    for candidate in candidates:
        if reason := refusal(baseline, candidate, args.allow_ranks):
            raise BadInput(reason)
    base_docs = [document for _, document in baseline]
    frames, comparisons = [], []
    failed = False
    for index, candidate in enumerate(candidates):
        paths = [path for path, _ in candidate]
        documents = [document for _, document in candidate]
        frame = compare_documents(base_docs, documents, threshold=args.threshold,
                                  alpha=args.alpha, per_rank=args.per_rank,
                                  resamples=args.resamples)
        differences = run_differences(base_docs, documents)
        if index:
            print("")
        report(args.baseline, base_docs, paths, documents, frame, args.threshold, args.alpha,
               args.per_rank, differences, warnings=device_warnings(base_docs, documents))
        if not frame["verdict"].isin(VERDICTS).any():
            raise BadInput(f"nothing compared: no case of {','.join(args.baseline)} was measured "
                           f"in {','.join(paths)}")
        failing = ("slower", "unclear") if args.fail_on_unclear else ("slower",)
        failed = failed or frame["verdict"].isin(failing).any()
        frames.append(frame.assign(baseline=",".join(args.baseline), candidate=",".join(paths)))
        comparisons.append((args.baseline, paths, differences, frame))
    if args.csv:
        table = pd.concat(frames, ignore_index=True)
        first = ["baseline", "candidate"]
        table[first + [c for c in table.columns if c not in first]].to_csv(args.csv, index=False)
    if args.markdown:
        _write(args.markdown, markdown(comparisons, args.threshold, args.alpha))
    if args.junit:
        _write(args.junit, junit(comparisons, args.fail_on_unclear))
    return 1 if failed else 0


def _write(path, text):
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)
