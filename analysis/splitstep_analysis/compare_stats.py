"""The statistics of a comparison, pure functions of the samples: the rank test, the bootstrap
interval of the median ratio, and the verdict they give one matched case."""
import math

import numpy as np
from scipy import stats

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
