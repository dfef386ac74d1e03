"""nccl-tests' output as the reference table compare_reference.py reads.

Reads what an nccl-tests binary (all_reduce_perf, ...) printed and writes CSV rows
`collective,size_bytes,time_us,busbw_gbps,label` for its out-of-place columns, so that a
splitstep run and nccl-tests from the same job can be compared. Standard library only.

    python3 analysis/nccl_tests_table.py allreduce nccl-tests.txt > nccl-tests.csv
"""
import argparse
import sys


def parse(lines):
    """(size_bytes, time_us, busbw_gbps) per data row of nccl-tests' output, out of place.

    A data row starts with the size and holds size, count, type, redop, root, then time, algbw,
    busbw and #wrong out of place, and the same in place; comment lines start with '#'.
    """
    rows = []
    for line in lines:
        fields = line.split()
        if len(fields) < 13 or line.lstrip().startswith("#") or not fields[0].isdigit():
            continue
        rows.append((int(fields[0]), float(fields[5]), float(fields[7])))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("collective", help="splitstep's suite name, e.g. allreduce")
    parser.add_argument("output", help="the text nccl-tests printed")
    parser.add_argument("--label", default="nccl-tests")
    args = parser.parse_args()
    with open(args.output) as f:
        rows = parse(f)
    if not rows:
        raise SystemExit(f"{args.output}: no nccl-tests data rows")
    out = sys.stdout
    out.write("collective,size_bytes,time_us,busbw_gbps,label\n")
    for size, time_us, busbw in rows:
        out.write(f"{args.collective},{size},{time_us},{busbw},{args.label}\n")


if __name__ == "__main__":
    main()
