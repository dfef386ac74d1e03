"""splitstep's collective sweeps beside nccl-tests' output from the same job: time and busbw
ratios per collective, placement and size, whether every busbw ratio from --min-bytes up lies
within --tolerance of 1, and whether splitstep's checks found every element right.

    compare_nccl_tests.py results.json alltoall_perf.txt sendrecv_perf.txt ...
    compare_nccl_tests.py results.json gather=out/gather.txt --min-bytes 64M --tolerance 2

Each nccl-tests file is the standard output of one *_perf binary, named after it
(`alltoall_perf.txt`, `all_reduce_perf-np2.log`) or given as collective=path. Exit status 0 when
every compared ratio is within the tolerance and no check failed, 1 otherwise, 2 when nothing
could be compared.
"""
import argparse
import math
import os
import re
import sys

import pandas as pd

from splitstep_results import load_cases

# nccl-tests' binaries by splitstep's suite names.
COLLECTIVES = {"all_reduce": "allreduce", "all_gather": "allgather",
               "reduce_scatter": "reduce_scatter", "broadcast": "broadcast", "reduce": "reduce",
               "alltoall": "alltoall", "sendrecv": "sendrecv", "gather": "gather",
               "scatter": "scatter"}
# nccl-tests' type names by splitstep's dtypes.
DTYPES = {"float": "fp32", "bfloat16": "bf16", "half": "fp16"}
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def byte_count(text):
    match = re.fullmatch(r"(\d+)([KMG]?)(?:i?B)?", text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"'{text}' is not a byte count (e.g. 64M)")
    return int(match.group(1)) * UNITS[match.group(2)]


def collective_of(argument):
    """(collective, path) from collective=path or from the file's name."""
    if "=" in argument:
        name, path = argument.split("=", 1)
        if name not in COLLECTIVES.values():
            raise SystemExit(f"{argument}: unknown collective '{name}'")
        return name, path
    base = os.path.basename(argument)
    for binary, name in sorted(COLLECTIVES.items(), key=lambda item: -len(item[0])):
        if base.startswith(binary + "_perf") or base.startswith(binary + "."):
            return name, argument
    raise SystemExit(f"{argument}: name it <binary>_perf... or give collective=path")


def number(token):
    try:
        return float(token)
    except ValueError:
        return math.nan  # nccl-tests prints N/A where it does not check (in-place alltoall)


def parse_nccl_tests(text, collective):
    """One row per size and placement of an nccl-tests table: the last eight columns are the
    out-of-place and in-place time (us), algbw, busbw (GB/s) and wrong count."""
    rows = []
    for line in text.splitlines():
        tokens = line.split()
        if len(tokens) < 10 or not tokens[0].isdigit():
            continue
        dtype = DTYPES.get(tokens[2], tokens[2])
        for placement, columns in (("out of place", tokens[-8:-4]), ("in place", tokens[-4:])):
            time_us, algbw, busbw, wrong = (number(t) for t in columns)
            rows.append({"suite": collective, "dtype": dtype, "placement": placement,
                         "bytes": int(tokens[0]), "nccl_tests_us": time_us,
                         "nccl_tests_busbw": busbw, "nccl_tests_wrong": wrong})
    return pd.DataFrame(rows)


def compare(cases, reference, min_bytes, tolerance):
    """The matched rows with their ratios, and the rows from min_bytes up outside tolerance."""
    nccl = cases[cases["backend"] == "nccl"].astype({"bytes": "int64"})
    merged = nccl.merge(reference, on=["suite", "dtype", "placement", "bytes"])
    merged = merged[merged["nccl_tests_us"].notna() & (merged["nccl_tests_us"] > 0)].copy()
    merged["splitstep_us"] = merged["median_s"] * 1e6
    merged["time_ratio"] = merged["splitstep_us"] / merged["nccl_tests_us"]
    if "busbw GB/s" not in merged:
        merged["busbw GB/s"] = math.nan
    merged["busbw_ratio"] = merged["busbw GB/s"] / merged["nccl_tests_busbw"].where(
        merged["nccl_tests_busbw"] > 0)
    judged = merged[(merged["bytes"] >= min_bytes) & merged["busbw_ratio"].notna()]
    outside = judged[(judged["busbw_ratio"] - 1).abs() > tolerance]
    return merged, judged, outside


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", help="a splitstep results.json")
    parser.add_argument("nccl_tests", nargs="+", help="nccl-tests output: FILE or collective=FILE")
    parser.add_argument("--min-bytes", type=byte_count, default=64 << 20,
                        help="judge busbw from this size up (default 64M)")
    parser.add_argument("--tolerance", type=float, default=2.0,
                        help="largest busbw difference in percent (default 2)")
    args = parser.parse_args()

    frames = []
    for argument in args.nccl_tests:
        collective, path = collective_of(argument)
        with open(path) as f:
            frames.append(parse_nccl_tests(f.read(), collective))
    reference = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    cases = load_cases(args.results)
    if reference.empty or cases.empty or "backend" not in cases:
        print("nothing to compare: no nccl-tests table or no collective case", file=sys.stderr)
        return 2
    merged, judged, outside = compare(cases, reference, args.min_bytes, args.tolerance / 100)
    if merged.empty:
        print("no splitstep case matches an nccl-tests row (collective, dtype, placement, bytes)",
              file=sys.stderr)
        return 2
    columns = ["suite", "dtype", "placement", "bytes", "splitstep_us", "nccl_tests_us",
               "time_ratio", "busbw GB/s", "nccl_tests_busbw", "busbw_ratio"]
    with pd.option_context("display.width", 200, "display.max_rows", 1000):
        print(merged[columns].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print()
    for (suite, placement), rows in judged.groupby(["suite", "placement"], sort=False):
        worst = rows.loc[(rows["busbw_ratio"] - 1).abs().idxmax()]
        verdict = "within" if abs(worst["busbw_ratio"] - 1) <= args.tolerance / 100 else "OUTSIDE"
        print(f"{suite} {placement}: busbw ratio {rows['busbw_ratio'].min():.3f}-"
              f"{rows['busbw_ratio'].max():.3f} over {len(rows)} sizes >= {args.min_bytes} B, "
              f"{verdict} {args.tolerance:g}% (worst at {int(worst['bytes'])} B)")
    compared = cases[cases["suite"].isin(reference["suite"].unique())]
    wrong = compared[compared["wrong"] > 0]
    print(f"splitstep's checks: {len(compared)} cases of these collectives, "
          f"{len(wrong)} with wrong elements"
          + "".join(f"\n  {row.suite} {row.case}: {row.wrong} wrong" for row in wrong.itertuples()))
    if judged.empty:
        print(f"no busbw to judge from {args.min_bytes} B up", file=sys.stderr)
        return 2
    return 1 if not outside.empty or not wrong.empty else 0


if __name__ == "__main__":
    sys.exit(main())
