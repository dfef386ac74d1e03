"""nccl-tests beside splitstep: its output as a reference table, and splitstep's collective sweeps
beside that output or beside such a table.

  splitstep-analysis nccl-tests table allreduce all_reduce_perf.txt > reference.csv
  splitstep-analysis nccl-tests compare results.json alltoall_perf.txt gather=out/gather.txt
  splitstep-analysis nccl-tests compare results.json analysis/reference/nccl-tests-h200x2.csv

`table` writes what an nccl-tests binary printed as CSV rows
`collective,size_bytes,time_us,busbw_gbps,label` (its out-of-place columns), the reference
table `compare` and `plot --reference` read. It reads no results file, so the collective is the
name given, written as it is: `compare` matches it against the results file's collectives.

`compare` sets splitstep's NCCL cases beside each source: the standard output of an nccl-tests
*_perf binary, given as collective=path, else known by the binary it names (`# Collective test
starting: alltoall_perf`) or is named after (`alltoall_perf.txt`, `all_reduce_perf-np2.log`),
each binary's collective as the results file's catalogue gives it (collective_facts.py),
matched by collective, dtype, placement and bytes; or a reference table
(`*.csv`), matched by collective and bytes out of place. It prints the time and busbw ratios
per collective, placement and size, whether every busbw ratio from --min-bytes up lies within
--tolerance of 1 (the time ratio where a run of one rank has no busbw), and whether
splitstep's checks of those collectives found every element right. Exit status 1 when a ratio is outside or a check found wrong elements, 2 when nothing
could be compared.
"""
import math
import os
import re
import sys

from .cli import option_type
from .rates import BUSBW, rate_column, rate_name
from .schema import PLACEMENT_WORDS, BadInput, read_bytes

# nccl-tests' type names by splitstep's dtypes.
DTYPES = {"float": "fp32", "bfloat16": "bf16", "half": "fp16"}
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
REFERENCE_COLUMNS = ["collective", "size_bytes", "time_us", "busbw_gbps", "label"]


def byte_count(text):
    """'64M' -> 67108864."""
    match = re.fullmatch(r"(\d+)([KMG]?)(?:i?B)?", text.strip())
    if not match:
        raise ValueError(f"'{text}' is not a byte count (e.g. 64M)")
    return int(match.group(1)) * UNITS[match.group(2)]


def collective_of(argument, binaries, text=""):
    """(collective, path) from collective=path, else from the binary the output `text` names
    ("# Collective test starting: all_reduce_perf"), else from the file's name
    (all_reduce_perf-np2.log). `binaries` maps nccl-tests' binaries to splitstep's collectives:
    collective_facts.binaries of the results file."""
    if "=" in argument:
        name, path = argument.split("=", 1)
        if name not in binaries.values():
            raise BadInput(f"{argument}: unknown collective '{name}'")
        return name, path
    started = re.search(r"^# Collective test starting: (\S+)", text, re.MULTILINE)
    if started and started.group(1) in binaries:
        return binaries[started.group(1)], argument
    base = os.path.basename(argument)
    for binary, name in sorted(binaries.items(), key=lambda item: -len(item[0])):
        stem = binary.removesuffix("_perf")
        if base.startswith(stem + "_perf") or base.startswith(stem + "."):
            return name, argument
    raise BadInput(f"{argument}: name it <binary>_perf... or give collective=path")


def _number(token):
    try:
        return float(token)
    except ValueError:
        return math.nan  # nccl-tests prints N/A where it does not check (in-place alltoall)


def parse_nccl_tests(text, collective):
    """One dict per size and placement of an nccl-tests table: collective, dtype, placement
    ("out", "in"), bytes (its size column), nccl_tests_us, nccl_tests_busbw, nccl_tests_wrong.
    A data row starts with the size; its last eight columns are the out-of-place and in-place
    time (us), algbw, busbw (GB/s) and wrong count; comment lines start with '#'."""
    rows = []
    for line in text.splitlines():
        tokens = line.split()
        if len(tokens) < 10 or not tokens[0].isdigit():
            continue
        dtype = DTYPES.get(tokens[2], tokens[2])
        for placement, columns in (("out", tokens[-8:-4]), ("in", tokens[-4:])):
            time_us, _, busbw, wrong = (_number(t) for t in columns)
            rows.append({"collective": collective, "dtype": dtype, "placement": placement,
                         "bytes": int(tokens[0]), "nccl_tests_us": time_us,
                         "nccl_tests_busbw": busbw, "nccl_tests_wrong": wrong})
    return rows


def _read_text(path):
    try:
        return read_bytes(path).decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadInput(f"{path}: not text: {error}") from None


def read_reference(path):
    """A reference table (collective,size_bytes,time_us,busbw_gbps,label; '#' comments) as a
    DataFrame. Raises BadInput naming the file."""
    import pandas as pd  # only here: `table` runs without pandas

    try:
        reference = pd.read_csv(path, comment="#")
    except (OSError, ValueError) as error:
        raise BadInput(f"{path}: {error}") from None
    missing = [c for c in REFERENCE_COLUMNS if c not in reference]
    if missing:
        raise BadInput(f"{path}: no column {', '.join(missing)}")
    return reference


def reference_rows(reference):
    """A reference table's rows as nccl-tests rows: out of place, any dtype (the table has none)."""
    return reference.rename(columns={"size_bytes": "bytes", "time_us": "nccl_tests_us",
                                     "busbw_gbps": "nccl_tests_busbw"}).assign(
        placement="out", nccl_tests_wrong=math.nan)[
        ["collective", "placement", "bytes", "nccl_tests_us", "nccl_tests_busbw",
         "nccl_tests_wrong"]]


def compare(cases, reference, min_bytes, tolerance):
    """(matched rows with their ratios, the judged rows from min_bytes up, those outside
    tolerance). `reference` holds nccl-tests rows; without a dtype column they match any."""
    import pandas as pd

    busbw = rate_column(cases, BUSBW)
    nccl = cases[(cases["family"] == "collective") & (cases["backend"] == "nccl")]
    keys = ["collective", "placement", "bytes"] + (["dtype"] if "dtype" in reference else [])
    merged = nccl.merge(reference.astype({"bytes": "Int64"}), on=keys)
    merged = merged[merged["nccl_tests_us"].notna() & (merged["nccl_tests_us"] > 0)].copy()
    merged["splitstep_us"] = merged["median_s"] * 1e6
    merged["time_ratio"] = merged["splitstep_us"] / merged["nccl_tests_us"]
    if busbw not in merged:
        merged[busbw] = math.nan
    merged["busbw_ratio"] = merged[busbw] / merged["nccl_tests_busbw"].where(
        merged["nccl_tests_busbw"] > 0)
    # On one rank nothing crosses a link: splitstep defines no busbw (nccl-tests prints 0), and
    # the times, the same work on both sides, are what is judged.
    merged["judged_by"] = "busbw"
    merged.loc[merged[busbw].isna(), "judged_by"] = "time"
    merged["ratio"] = merged["busbw_ratio"].where(merged["judged_by"] == "busbw",
                                                  merged["time_ratio"])
    judged = merged[(merged["bytes"] >= min_bytes) & merged["ratio"].notna()]
    outside = judged[(judged["ratio"] - 1).abs() > tolerance]
    return pd.DataFrame(merged), judged, outside


def fastest(reference):
    """Per collective, dtype, placement and size, the row of the run with the shortest time:
    nccl-tests' best figure over runs of different modes. Its eager loop of a few iterations is
    bound by its host at sizes of tens of microseconds, and its CUDA-graph mode reads slower at
    large sizes, so neither alone is the work's time everywhere."""
    keys = [k for k in ("collective", "dtype", "placement", "bytes") if k in reference]
    timed = reference[reference["nccl_tests_us"].notna()]
    return timed.loc[timed.groupby(keys)["nccl_tests_us"].idxmin()].reset_index(drop=True)


def add_arguments(parser):
    modes = parser.add_subparsers(dest="mode", metavar="MODE", required=True,
                                  parser_class=type(parser))
    table = modes.add_parser("table", help="nccl-tests' output as a reference table (CSV)")
    table.add_argument("collective", help="splitstep's name of the collective, e.g. allreduce")
    table.add_argument("output", help="the text nccl-tests printed")
    table.add_argument("--label", default="nccl-tests")
    against = modes.add_parser("compare", help="splitstep's sweeps beside nccl-tests' output "
                                               "or a reference table")
    against.add_argument("results", help="a splitstep results file")
    against.add_argument("sources", nargs="+", metavar="source",
                         help="nccl-tests output (FILE or collective=FILE) or a reference "
                              "table (FILE.csv)")
    against.add_argument("--min-bytes", type=option_type(byte_count), default=64 << 20,
                         help="judge busbw from this size up (default 64M)")
    against.add_argument("--tolerance", type=float, default=2.0,
                         help="largest busbw difference in percent (default 2)")
    against.add_argument("--best", action="store_true",
                         help="the sources are runs of one collective in different modes "
                              "(eager, -G 1, more iterations): hold each size to the fastest")


def run(args):
    return {"table": run_table, "compare": run_compare}[args.mode](args)


def run_table(args):
    rows = [row for row in parse_nccl_tests(_read_text(args.output), args.collective)
            if row["placement"] == "out"]
    if not rows:
        raise BadInput(f"{args.output}: no nccl-tests data rows")
    out = sys.stdout
    out.write(",".join(REFERENCE_COLUMNS) + "\n")
    for row in rows:
        out.write(f"{args.collective},{row['bytes']},{row['nccl_tests_us']},"
                  f"{row['nccl_tests_busbw']},{args.label}\n")
    return 0


def run_compare(args):
    import pandas as pd

    from .collective_facts import binaries
    from .results import load_cases, read_results

    document = read_results(args.results)
    cases = load_cases(document)
    if cases.empty or "backend" not in cases:
        raise BadInput(f"{args.results}: nothing to compare: no collective case")
    tolerance = args.tolerance / 100
    references = []
    for source in args.sources:
        if source.endswith(".csv"):
            reference = reference_rows(read_reference(source))
        else:
            path = source.split("=", 1)[1] if "=" in source else source
            text = _read_text(path)
            collective, _ = collective_of(source, binaries(document), text)
            reference = pd.DataFrame(parse_nccl_tests(text, collective))
            if reference.empty:
                raise BadInput(f"{path}: no nccl-tests data rows")
        references.append(reference.assign(nccl_tests_run=os.path.basename(source)))
    if args.best:
        references = [fastest(pd.concat(references, ignore_index=True))]
    parts, collectives = [], set()
    for reference in references:
        collectives |= set(reference["collective"])
        parts.append(compare(cases, reference, args.min_bytes, tolerance))
    merged, judged, outside = (pd.concat(frames, ignore_index=True) for frames in zip(*parts))
    if merged.empty:
        raise BadInput("no splitstep case matches an nccl-tests row (collective, dtype, "
                       "placement, bytes)")
    columns = ["collective", "dtype", "placement", "bytes", "splitstep_us", "nccl_tests_us",
               "time_ratio", rate_name(document, BUSBW), "nccl_tests_busbw", "busbw_ratio"]
    if args.best:
        columns.append("nccl_tests_run")
    with pd.option_context("display.width", 200, "display.max_rows", 1000):
        print(merged[columns].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print()
    for (collective, placement, by), rows in judged.groupby(
            ["collective", "placement", "judged_by"], sort=False):
        worst = rows.loc[(rows["ratio"] - 1).abs().idxmax()]
        verdict = "within" if abs(worst["ratio"] - 1) <= tolerance else "OUTSIDE"
        single = " (one rank: no busbw)" if by == "time" else ""
        print(f"{collective} {PLACEMENT_WORDS.get(placement, placement)}: {by} ratio "
              f"{rows['ratio'].min():.3f}-{rows['ratio'].max():.3f} over "
              f"{len(rows)} sizes >= {args.min_bytes} B, {verdict} {args.tolerance:g}% "
              f"(worst at {int(worst['bytes'])} B){single}")
    checked = cases[cases["collective"].isin(collectives)]
    wrong = checked[checked["wrong"] > 0]
    print(f"splitstep's checks: {len(checked)} cases of these collectives, "
          f"{len(wrong)} with wrong elements"
          + "".join(f"\n  {row.suite} {row.case}: {row.wrong} wrong" for row in wrong.itertuples()))
    if judged.empty:
        raise BadInput(f"no busbw or time to judge from {args.min_bytes} B up")
    return 1 if not outside.empty or not wrong.empty else 0
