"""Scaling tables from splitstep results at several rank counts, as markdown.

Each file is a results file of one rank count (launch/verify scaling writes allreduce-npN.json and
step-npN.json); the rank count is read from each file's metadata. The tables: NCCL busbw (fp32,
out of place) per size by rank count of each collective the file's catalogue gives this table
(allreduce: collective_facts.py), and per step workload its times, exposed communication,
overlap and weak-scaling efficiency by rank count. Exit status 2 when the files hold none.
"""
import pandas as pd

from .collective_facts import SCALING_BUSBW, judged_by
from .rates import BUSBW, rate_name
from .results import load_cases, load_derived, read_results
from .schema import BadInput

STEP_FIGURES = [("step/time/none", "T_c (ms)", 1e3), ("step/time/sequential", "T_seq (ms)", 1e3),
                ("step/time/overlap", "T_ddp (ms)", 1e3), ("step/time/single", "T_1 (ms)", 1e3),
                ("step/exposed/overlap", "exposed (ms)", 1e3),
                ("step/overlap/overlap", "overlap (%)", 1),
                ("step/efficiency/overlap", "T_1 / T_ddp (%)", 1)]


def world_size(document, path):
    ranks = document["metadata"].get("world_size")
    if not isinstance(ranks, int) or isinstance(ranks, bool):
        raise BadInput(f"{path}: metadata.world_size is missing or not an integer")
    return ranks


def busbw_tables(documents):
    """[(collective, table)]: per collective whose file's catalogue gives it the scaling table
    (its verdicts hold scaling-busbw: allreduce), NCCL fp32 out-of-place busbw GB/s per size
    (rows) and rank count (columns). `documents` is a list of (path, document)."""
    frames = []
    for path, document in documents:
        cases = load_cases(document)
        busbw = rate_name(document, BUSBW)
        if busbw not in cases or "backend" not in cases:
            continue  # no collectives, or one rank, where busbw is not defined
        cases = cases[cases["collective"].isin(judged_by(document, SCALING_BUSBW)) &
                      (cases["backend"] == "nccl") & (cases["dtype"] == "fp32") &
                      (cases["placement"] == "out")]
        if cases.empty:
            continue
        frames.append(cases.assign(ranks=world_size(document, path))[
            ["collective", "size", "ranks", busbw]].rename(columns={busbw: "busbw"}))
    if not frames:
        return []
    tables = []
    for collective, rows in pd.concat(frames).groupby("collective", sort=False):
        table = rows.pivot_table(index="size", columns="ranks", values="busbw")
        table.columns = [f"{busbw}, {n} ranks" for n in table.columns]
        tables.append((collective, table.reset_index().rename(columns={"size": "bytes"})))
    return tables


def step_table(documents):
    """Per step workload and rank count its derived figures, or None."""
    rows = []
    for path, document in documents:
        derived = load_derived(document)
        if derived.empty:
            continue
        n = world_size(document, path)
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


def add_arguments(parser):
    parser.add_argument("results", nargs="+", help="results files, one rank count each")


def run(args):
    documents = [(path, read_results(path)) for path in args.results]
    tables = [(f"NCCL {collective}", table) for collective, table in busbw_tables(documents)]
    steps = step_table(documents)
    if steps is not None:
        tables.append(("Training step", steps))
    if not tables:
        raise BadInput("no NCCL fp32 busbw of a collective the files scale (allreduce) and no "
                       "derived step figures in the files")
    for title, table in tables:
        print(f"### {title}\n\n{markdown(table)}\n")
    return 0
