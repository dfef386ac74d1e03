"""Two runs of the same cases side by side: do their medians agree where the workload is quiet?

For every case measured in both files (wholes only: a step's phases follow their step) whose
spread, the largest std/mean over ranks, is below --spread in both runs, the ratio of the
across-rank medians. Prints one line per case and a last line with how many lie within
--within. Standard library only, so that it runs on a bare GPU node.

    python3 analysis/consistency.py run1.json run2.json [--spread 0.02] [--within 0.01]
"""
import argparse
import json


def cases_by_key(path):
    """{(suite, case, series): (median seconds, largest cv over ranks)} of a results file."""
    with open(path) as f:
        document = json.load(f)
    found = {}
    for case in document["cases"]:
        if case["skipped"] or case.get("part_of"):
            continue
        spread = max(rank["summary"]["cv"] for rank in case["ranks"])
        found[(case["suite"], case["case"], case["series"])] = (case["across_ranks"]["median"],
                                                                 spread)
    return found


def compare(first, second, spread, within):
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


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--spread", type=float, default=0.02,
                        help="judge cases whose std/mean is below this in both runs")
    parser.add_argument("--within", type=float, default=0.01,
                        help="the largest relative difference of the medians that agrees")
    args = parser.parse_args()
    rows = compare(cases_by_key(args.first), cases_by_key(args.second), args.spread, args.within)
    print(f"{'suite':<10} {'case':<28} {'median 1':>12} {'median 2':>12} {'2/1':>8} "
          f"{'spread 1':>9} {'spread 2':>9}  verdict")
    for suite, case, m1, m2, ratio, s1, s2, verdict in rows:
        print(f"{suite:<10} {case:<28} {m1:12.6g} {m2:12.6g} {ratio:8.4f} {s1:9.2%} {s2:9.2%}  "
              f"{verdict}")
    judged = [row for row in rows if row[-1] != "noisy"]
    agreeing = [row for row in judged if row[-1] == "ok"]
    print(f"{len(agreeing)} of {len(judged)} cases with spread below {args.spread:.0%} agree "
          f"within {args.within:.0%} ({len(rows) - len(judged)} noisier cases not judged)")


if __name__ == "__main__":
    main()
