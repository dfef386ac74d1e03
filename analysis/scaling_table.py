"""Scaling tables from splitstep results at several rank counts, as markdown.

Each file is a results.json of one rank count (launch/scaling writes allreduce-npN.json and
step-npN.json); the rank count is read from each file's metadata. Two tables: NCCL allreduce
busbw per size by rank count, and per step workload its times, exposed communication, overlap
and weak-scaling efficiency by rank count.
"""
import argparse
import json

import pandas as pd

from splitstep_results import load_cases, load_derived

STEP_FIGURES = [("step/time/none", "T_c (ms)", 1e3), ("step/time/sequential", "T_seq (ms)", 1e3),
                ("step/time/overlap", "T_ddp (ms)", 1e3), ("step/time/single", "T_1 (ms)", 1e3),
                ("step/exposed/overlap", "exposed (ms)", 1e3),
                ("step/overlap/overlap", "overlap (%)", 1),
                ("step/efficiency/overlap", "T_1 / T_ddp (%)", 1)]


def world_size(path):
    with open(path) as f:
        return json.load(f)["metadata"]["world_size"]


def allreduce_table(paths):
    frames = []
    for path in paths:
        cases = load_cases(path)
        if "busbw GB/s" not in cases or "backend" not in cases:
            continue  # no collectives, or one rank, where busbw is not defined
        cases = cases[(cases["suite"] == "allreduce") & (cases["backend"] == "nccl")]
        cases = cases[(cases["dtype"] == "fp32") & (cases["placement"] == "out of place")]
        if cases.empty:
            continue
        frames.append(cases.assign(ranks=world_size(path))[["size", "ranks", "busbw GB/s"]])
    if not frames:
        return None
    table = pd.concat(frames).pivot_table(index="size", columns="ranks", values="busbw GB/s")
    table.columns = [f"busbw GB/s, {n} ranks" for n in table.columns]
    return table.reset_index().rename(columns={"size": "bytes"})


def step_table(paths):
    rows = []
    for path in paths:
        derived = load_derived(path)
        if derived.empty:
            continue
        n = world_size(path)
        for subject, figures in derived.groupby("subject", sort=False):
            values = figures.set_index("tag")["value"]
            row = {"workload": subject, "ranks": n}
            for tag, column, scale in STEP_FIGURES:
                row[column] = values[tag] * scale if tag in values else None
            rows.append(row)
    if not rows:
        return None
    return pd.DataFrame(rows).sort_values(["workload", "ranks"])


def markdown(table):
    """A pipe table; numbers with two decimals, missing figures as "-"."""
    def cell(value):
        if value is None or (isinstance(value, float) and pd.isna(value)):
            return "-"
        return f"{value:.2f}" if isinstance(value, float) else str(value)
    header = "| " + " | ".join(str(c) for c in table.columns) + " |"
    rule = "|" + "|".join("---" if i == 0 else "---:" for i in range(len(table.columns))) + "|"
    rows = ["| " + " | ".join(cell(v) for v in row) + " |" for row in table.itertuples(index=False)]
    return "\n".join([header, rule] + rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", nargs="+", help="results.json files, one rank count each")
    args = parser.parse_args()
    for title, table in (("NCCL allreduce", allreduce_table(args.results)),
                         ("Training step", step_table(args.results))):
        if table is not None:
            print(f"### {title}\n\n{markdown(table)}\n")


if __name__ == "__main__":
    main()
