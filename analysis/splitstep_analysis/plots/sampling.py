"""Where a budgeted sweep's sampling time went (--sweep-time), and the interval it bought."""
import math

import matplotlib.pyplot as plt
import numpy as np

from .common import Plot

# A colour per stopping rule (results-schema.md's `stop_rule`): the budget's stops stand out.
_RULE_COLOURS = {"converged": "#55a868", "noise-target": "#8172b2", "noise-stable": "#4c72b0",
                 "out-of-reach": "#937860", "sweep-time": "#c44e52", "max-time": "#dd8452",
                 "fixed": "#8c8c8c"}


def _budget(document):
    """The run's sweep budget in seconds, or None where it had none (or wrote its plan as
    text, before a budget existed)."""
    budget = document.get("plan", {}).get("sweep-time")
    number = isinstance(budget, (int, float)) and not isinstance(budget, bool)
    return float(budget) if number and budget > 0 else None


def _reach(rank):
    """How far the rank's 95% interval of its median reaches from the median, on its wider side,
    relative to the median: what --ci-target bounds and the console's ±ci shows."""
    median, interval = rank.get("summary", {}).get("median", 0.0), rank.get("median_ci", {})
    if median <= 0 or "low" not in interval or "high" not in interval:
        return math.nan
    return max(interval["high"] - median, median - interval["low"]) / median


def _rows(document):
    """(label, stop rule, sampling s, reach) per measured whole case: the longest any rank
    sampled (a case costs the run its slowest rank's time), the rule that stopped that rank, and
    the widest reach over the ranks, as the console's ±ci."""
    suites = {case["suite"] for case in document["cases"]}
    rows = []
    for case in document["cases"]:
        if case.get("skipped") or case.get("part_of") or case.get("detail"):
            continue
        ranks = [r for r in case.get("ranks", []) if r.get("values")]
        if not ranks:
            continue
        longest = max(ranks, key=lambda r: r.get("wall", {}).get("sampling", 0.0))
        label = case["case"] if len(suites) == 1 else f"{case['suite']}: {case['case']}"
        rows.append((label, longest.get("stop_rule", "none"),
                     longest.get("wall", {}).get("sampling", 0.0),
                     max(_reach(r) for r in ranks)))
    return rows


def sampling_figures(document):
    """[Plot] for a run with a sweep budget: per case (in the order run) the seconds its slowest
    rank sampled, coloured by the rule that stopped it, with the budget's even share as a line;
    below, how far the median's 95% interval reaches (the console's ±ci) against --ci-target. Empty for a
    run without a budget, whose cases each sample until their own rule stops them."""
    budget = _budget(document)
    rows = _rows(document) if budget else []
    if not rows:
        return []
    labels, rules, seconds, reaches = zip(*rows)
    positions = np.arange(len(rows))
    figure, (top, bottom) = plt.subplots(2, 1, sharex=True,
                                         figsize=(max(7.0, 1.5 + 0.32 * len(rows)), 6.5))
    for rule in dict.fromkeys(rules):
        at = [i for i, r in enumerate(rules) if r == rule]
        top.bar(positions[at], [seconds[i] for i in at], 0.8,
                color=_RULE_COLOURS.get(rule, "#bdbdbd"), label=rule)
        bottom.bar(positions[at], [100 * reaches[i] for i in at], 0.8,
                   color=_RULE_COLOURS.get(rule, "#bdbdbd"))
    top.axhline(budget / len(rows), color="black", linestyle="--", linewidth=1,
                label=f"budget / cases ({budget:g} s / {len(rows)})")
    top.set_ylabel("sampling (s), slowest rank")
    figure.suptitle(f"Sampling time per case under a {budget:g} s sweep budget "
                    f"({sum(seconds):.2f} s in all), by the rule that stopped it", fontsize=10)
    # Above the bars, where it hides none of them.
    top.legend(fontsize=7, ncol=4, frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0))
    target = document.get("metadata", {}).get("measure", {}).get("ci_target")
    if isinstance(target, (int, float)) and target > 0:
        bottom.axhline(100 * target, color="black", linestyle="--", linewidth=1,
                       label=f"interval target ±{100 * target:g}%")
        bottom.legend(fontsize=7)
    bottom.set_ylabel("±ci: 95% interval's reach (%)")
    if any(r > 0 for r in reaches if not math.isnan(r)):
        bottom.set_yscale("log")
    bottom.set_xticks(positions, labels, rotation=60, ha="right", fontsize=7)
    for axis in (top, bottom):
        axis.grid(True, axis="y", alpha=0.3)
    figure.set_layout_engine("tight")
    # It draws no case's figure, only what its sampling cost: the cases' own figures draw them.
    return [Plot("sampling", figure, frozenset())]
