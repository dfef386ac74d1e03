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
import sys
import zlib

import numpy as np
import pandas as pd
from scipy import stats

from .cli import option_type
from .differences import (device_warnings, parse_pattern, parse_suites, refusal,
                          run_differences, select)
from .schema import BadInput, read_results

SEED = 20261130
EXACT_LIMIT = 20  # Mann-Whitney: the exact distribution up to this many samples on each side
# The bootstrap splits each rank's time-ordered samples into this many contiguous batches and
# draws batches, not samples. Clocks, temperature and the GPU's internal state hold for stretches
# of a run (one H200 ran a 64 KiB allreduce at 4.8 us for the first eighth of a run, 6.0 us for
# the next six eighths, 4.8 us again at the end), so neighbouring samples are alike, and an iid
# resample, which scatters them, makes the median look steadier than it is. A batch keeps a
# stretch of an eighth of the run or longer together; more batches would cut such stretches
# apart, fewer would make the interval coarse (a replicate is one of C(2B - 1, B) multisets of
# B batches: 6435 for eight). A rank needs two samples a batch; one with fewer is resampled
# sample by sample, which is what batches of one sample would do anyway.
BATCHES = 8
VERDICTS = ("faster", "slower", "same", "unclear")


# --- statistics (pure functions) ------------------------------------------------------------

def mann_whitney_u(x, y):
    """Two-sided Mann-Whitney U test of samples x and y: (U of x, p-value).

    scipy's, exact when both samples have at most EXACT_LIMIT values and there are no ties;
    otherwise the normal approximation with the tie correction and a continuity correction."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if len(x) == 0 or len(y) == 0:
        raise ValueError("Mann-Whitney U needs samples on both sides")
    pooled = np.concatenate((x, y))
    if np.all(pooled == pooled[0]):
        return len(x) * len(y) / 2.0, 1.0  # every value equal: nothing to rank
    exact = max(len(x), len(y)) <= EXACT_LIMIT and len(np.unique(pooled)) == len(pooled)
    result = stats.mannwhitneyu(x, y, alternative="two-sided",
                                method="exact" if exact else "asymptotic")
    return float(result.statistic), float(result.pvalue)


def smallest_p(n1, n2):
    """The smallest two-sided p-value the rank test can give for samples of n1 and n2 values:
    2 / C(n1 + n2, n1), when one sample lies wholly below the other."""
    return min(1.0, 2 / math.comb(n1 + n2, n1))  # int / int: no overflow for large n


def reported_median(by_rank):
    """The median over ranks of each rank's median (the report's across-rank median)."""
    return float(np.median([np.median(v) for v in by_rank]))


def side_median(runs):
    """The median over runs of each run's reported_median: a side's figure."""
    return float(np.median([reported_median(by_rank) for by_rank in runs]))


def _replicates(resamples, width, replicate):
    """`resamples` values of replicate(count) -> count values, in chunks of about 4 million drawn
    samples (`width` a replicate) to bound the memory."""
    out = np.empty(resamples)
    chunk = max(1, 4_000_000 // width)
    for start in range(0, resamples, chunk):
        stop = min(resamples, start + chunk)
        out[start:stop] = replicate(stop - start)
    return out


def _rank_medians(values, resamples, rng):
    """`resamples` bootstrap replicates of the median of one rank's time-ordered samples: drawn
    in BATCHES contiguous batches when there are at least two samples a batch, else one by
    one."""
    n = len(values)
    if n < 2 * BATCHES:
        return _replicates(resamples, n, lambda count: np.median(
            values[rng.integers(0, n, size=(count, n))], axis=1))
    batches = np.array_split(values, BATCHES)
    sizes = np.array([len(batch) for batch in batches])
    # The batches differ in length by one at most: the short ones are padded with NaN, which
    # sorts last, and each replicate's median is read at its own length.
    padded = np.full((BATCHES, sizes.max()), np.nan)
    for row, batch in zip(padded, batches):
        row[:len(batch)] = batch

    def replicate(count):
        picks = rng.integers(0, BATCHES, size=(count, BATCHES))
        drawn = np.sort(padded[picks].reshape(count, -1), axis=1)
        length = sizes[picks].sum(axis=1)
        rows = np.arange(count)
        return (drawn[rows, (length - 1) // 2] + drawn[rows, length // 2]) / 2.0

    return _replicates(resamples, padded.size, replicate)


def _run_medians(by_rank, resamples, rng):
    """`resamples` bootstrap replicates of reported_median, each rank resampled on its own."""
    return np.median(np.vstack([_rank_medians(values, resamples, rng) for values in by_rank]),
                     axis=0)


def _side_medians(runs, resamples, rng):
    """`resamples` bootstrap replicates of side_median: each draws as many runs as there are,
    with replacement, and resamples every drawn run (a run drawn twice, twice)."""
    picks = rng.integers(0, len(runs), size=(resamples, len(runs)))
    medians = np.empty(picks.shape)
    for index, by_rank in enumerate(runs):
        drawn = picks == index
        medians[drawn] = _run_medians(by_rank, int(drawn.sum()), rng)
    return np.median(medians, axis=1)


def ratio_interval(baseline, candidate, level, resamples, seed):
    """Percentile bootstrap interval, at confidence `level`, of
    side_median(candidate) / side_median(baseline); each argument a list of runs, a run a list
    of per-rank sample arrays in the order they were taken."""
    rng = np.random.default_rng(seed)
    ratios = _side_medians(candidate, resamples, rng) / _side_medians(baseline, resamples, rng)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(ratios, [tail, 1.0 - tail])
    return float(low), float(high)


def _label(side, index, runs):
    """How a note names run `index` of a side of `runs` runs."""
    return f"the {side}" if runs == 1 else f"{side} run {index + 1}"


def _join(labels):
    """Labels as prose: "a", "a and b", "a, b and c"; the baseline and the candidate, one file
    each: "both files"."""
    if labels == ["the baseline", "the candidate"]:
        return "both files"
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def decide(baseline, candidate, threshold, alpha, resamples=2000, seed=SEED):
    """The verdict for one matched case: a dict with n_baseline, n_candidate, the medians, ratio,
    ci_low, ci_high, p_value, verdict and note. `baseline` and `candidate` are lists of runs, a
    run a list of per-rank sample arrays (seconds, in the order they were taken)."""
    sides = {side: [[np.asarray(v, dtype=float) for v in by_rank if len(v)] for by_rank in runs]
             for side, runs in (("baseline", baseline), ("candidate", candidate))}
    n_b, n_c = (sum(len(v) for by_rank in sides[side] for v in by_rank)
                for side in ("baseline", "candidate"))
    result = {"n_baseline": n_b, "n_candidate": n_c, "baseline_median_s": math.nan,
              "candidate_median_s": math.nan, "ratio": math.nan, "ci_low": math.nan,
              "ci_high": math.nan, "p_value": math.nan, "verdict": "unclear", "note": ""}
    empty = [_label(side, index, len(runs)) for side, runs in sides.items()
             for index, by_rank in enumerate(runs) if not by_rank]
    if empty:
        which = _join(empty)
        result["note"] = "no samples in " + ("either file" if which == "both files" else which)
        return result
    baseline, candidate = sides["baseline"], sides["candidate"]
    base, cand = side_median(baseline), side_median(candidate)
    result.update(baseline_median_s=base, candidate_median_s=cand)
    if base <= 0 or cand <= 0:
        result["note"] = "a median is not positive"
        return result
    result["ratio"] = cand / base
    if smallest_p(n_b, n_c) >= alpha:
        result["note"] = f"too few samples ({n_b} and {n_c}) for p < {alpha:g}"
        return result
    pooled = [np.concatenate([v for by_rank in runs for v in by_rank])
              for runs in (baseline, candidate)]
    _, p = mann_whitney_u(*pooled)
    low, high = ratio_interval(baseline, candidate, 1.0 - alpha, resamples, seed)
    result.update(p_value=p, ci_low=low, ci_high=high)
    significant = p < alpha
    if significant and low > 1.0 + threshold:
        result["verdict"] = "slower"
    elif significant and high < 1.0 - threshold:
        result["verdict"] = "faster"
    elif 1.0 - threshold <= low and high <= 1.0 + threshold:
        result["verdict"] = "same"
    elif not significant and (low > 1.0 + threshold or high < 1.0 - threshold):
        result["note"] = f"interval beyond the threshold, but p = {p:.2g}"
    else:
        result["note"] = f"interval crosses {'+' if high > 1.0 + threshold else '-'}" \
                         f"{threshold * 100:g}%"
    return result


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


# --- consistency: do two runs' medians agree where the workload is quiet --------------------

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
    from . import compare_formats  # it imports this module's table helpers
    if args.markdown:
        _write(args.markdown, compare_formats.markdown(comparisons, args.threshold, args.alpha))
    if args.junit:
        _write(args.junit, compare_formats.junit(comparisons, args.fail_on_unclear))
    return 1 if failed else 0


def _write(path, text):
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)
