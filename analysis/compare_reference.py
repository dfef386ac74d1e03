"""splitstep's collective times and bus bandwidths beside a reference table, as ratios."""
import argparse

import pandas as pd

from splitstep_results import load_cases


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", help="a splitstep results.json")
    parser.add_argument("reference", help="CSV: collective,size_bytes,time_us,busbw_gbps,label")
    args = parser.parse_args()

    cases = load_cases(args.results)
    reference = pd.read_csv(args.reference, comment="#")
    merged = cases.merge(reference, left_on=["suite", "size"],
                         right_on=["collective", "size_bytes"])
    if merged.empty:
        raise SystemExit("no case of the result file has a reference figure")
    merged["time_us"] = merged["time_us"].astype(float)
    merged["splitstep_us"] = merged["median_s"] * 1e6
    merged["time_ratio"] = merged["splitstep_us"] / merged["time_us"]
    merged["busbw_ratio"] = merged["busbw GB/s"] / merged["busbw_gbps"].where(merged["busbw_gbps"] > 0)
    columns = ["suite", "backend", "dtype", "placement", "size", "splitstep_us", "time_us",
               "time_ratio", "busbw GB/s", "busbw_gbps", "busbw_ratio"]
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(merged[columns].to_string(index=False, float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
