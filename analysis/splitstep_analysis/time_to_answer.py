"""splitstep's own time to an answer: the table launch/verify time-to-answer writes.

For each run of OUTDIR (NAME.seconds: its wall-clock seconds; NAME.json: splitstep's results,
absent for nccl-tests) one row: the wall seconds, the cases measured, how many rank-cases
stopped on each rule, and where rank 0's time went: start-up (plan agreement, device,
communicators), the Measurer's phases summed over its cases (cold start, warm-up, prepare,
sampling), the rest of the suites' time (buffers, set-up, checks), gathering the samples, and
"launch": what the run's wall time holds beyond (starting the processes, loading libraries,
MPI, writing the report). The standard library only, so that it runs on a bare GPU node.

    splitstep-analysis time-to-answer OUTDIR [NAME ...] [--at-most NAME=LIMIT ...]

Each --at-most holds a run's wall time to a limit, in seconds ("default=30") or as a multiple
of another run's ("allreduce-sweep-budget=3x:nccl-tests"): a run over its limit is named on a
line, and the status is 1.
"""
import os

from .schema import BadInput, read_bytes, read_results

# Every rule a rank can stop on (harness/measure/Measurement.hpp's StopRule, but "none", which a
# measured case never holds): a rank-case on another is refused, never left out of the count.
RULES = ["converged", "noise-target", "noise-stable", "out-of-reach", "sweep-time", "max-time",
         "fixed"]
PHASES = ["cold_start", "warm_up", "prepare", "sampling"]
TIMES = ["start_up"] + PHASES + ["set_up_and_checks", "gather", "launch"]
TIME_HEADERS = ["start-up", "cold start", "warm-up", "prepare", "sampling", "set-up+checks",
                "gather", "launch"]
NAMES = ["default", "step", "allreduce-sweep", "allreduce-sweep-budget", "quick", "nccl-tests",
         "nccl-tests-long", "nccl-tests-graph"]


def _seconds(path):
    text = read_bytes(path).decode("utf-8", "replace").strip()
    try:
        return float(text)
    except ValueError:
        raise BadInput(f"{path}: {text[:40]!r} is not a number of seconds") from None


def _wall(document, path):
    try:
        wall = document["metadata"]["wall"]
        return wall["start_up"], sum(entry["seconds"] for entry in wall["suites"]), wall["gather"]
    except (KeyError, TypeError):
        raise BadInput(f"{path}: no metadata.wall with start_up, suites and gather") from None


def run_row(outdir, name):
    """The figures of run NAME in OUTDIR, as a dict; None when the run left no wall time."""
    seconds_path = os.path.join(outdir, name + ".seconds")
    if not os.path.exists(seconds_path):
        return None
    row = {"run": name, "wall_s": _seconds(seconds_path), "cases": None}
    json_path = os.path.join(outdir, name + ".json")
    if not os.path.exists(json_path):
        return row
    document = read_results(json_path)
    row["cases"] = 0
    row.update({rule: 0 for rule in RULES})
    row.update({phase: 0.0 for phase in PHASES})
    for case in document["cases"]:
        # A part (a step's phase) shares its whole's samples, rule and time.
        if case.get("skipped", False) or case.get("part_of"):
            continue
        row["cases"] += 1
        for rank in case.get("ranks", []):
            rule = rank.get("stop_rule", "")
            if rule not in RULES:
                raise BadInput(f"{json_path}: case {case['case']} rank {rank.get('rank')} stopped "
                               f"on {rule!r}, none of {', '.join(RULES)}")
            row[rule] += 1
            if rank["rank"] == 0:
                try:
                    for phase in PHASES:
                        row[phase] += rank["wall"][phase]
                except (KeyError, TypeError):
                    raise BadInput(f"{json_path}: case {case['case']} rank 0 has no wall."
                                   f"{phase}") from None
    start_up, suites, gather = _wall(document, json_path)
    row["start_up"] = start_up
    row["set_up_and_checks"] = suites - sum(row[phase] for phase in PHASES)
    row["gather"] = gather
    row["launch"] = row["wall_s"] - start_up - suites - gather
    return row


def format_table(rows):
    header = ["run", "wall s", "cases"] + RULES + TIME_HEADERS
    lines = [header]
    for row in rows:
        if row["cases"] is None:
            lines.append([row["run"], f"{row['wall_s']:.1f}"] + ["-"] * (len(header) - 2))
            continue
        lines.append([row["run"], f"{row['wall_s']:.1f}", str(row["cases"])]
                     + [str(row[rule]) for rule in RULES] + [f"{row[t]:.1f}" for t in TIMES])
    widths = [max(len(line[c]) for line in lines) for c in range(len(header))]
    return "\n".join("  ".join([line[0].ljust(widths[0])]
                               + [line[c].rjust(widths[c]) for c in range(1, len(line))])
                     for line in lines)


def parse_limit(text):
    """NAME=SECONDS or NAME=FACTORx:OTHER, as (name, factor, other): other None for seconds."""
    name, sep, limit = text.partition("=")
    factor, times, other = limit.partition("x:")
    try:
        value = float(factor)
    except ValueError:
        value = float("nan")
    if not sep or not name or not value > 0 or (times and not other):
        raise BadInput(f"--at-most: {text!r} is not NAME=SECONDS or NAME=FACTORx:OTHER")
    return name, value, other or None


def over_limits(rows, limits):
    """A line for each limit a run exceeds, saying by how much; a limit on a run or against a
    run that is not in `rows` is one too, since nothing then shows it was met."""
    walls = {row["run"]: row["wall_s"] for row in rows}
    lines = []
    for name, value, other in limits:
        against = f"{value:g}x {other}'s" if other else f"{value:g} s"
        if name not in walls or (other and other not in walls):
            lines.append(f"{name}: no wall time to hold to {against}")
            continue
        limit = value * walls[other] if other else value
        if walls[name] > limit:
            detail = f" ({limit:.2f} s)" if other else ""
            lines.append(f"{name}: {walls[name]:.2f} s, over {against}{detail}")
    return lines


def add_arguments(parser):
    parser.add_argument("outdir", help="the folder launch/verify time-to-answer wrote")
    parser.add_argument("names", nargs="*", default=NAMES,
                        help=f"the runs, by name (default: {' '.join(NAMES)})")
    parser.add_argument("--at-most", action="append", default=[], metavar="NAME=LIMIT",
                        help="hold run NAME's wall time to LIMIT: seconds (default=30), or a "
                             "multiple of another run's (allreduce-sweep-budget=3x:nccl-tests); "
                             "status 1 where one is over")


def run(args):
    if not os.path.isdir(args.outdir):
        raise BadInput(f"{args.outdir}: not a folder")
    limits = [parse_limit(text) for text in args.at_most]
    rows = [row for row in (run_row(args.outdir, name) for name in args.names) if row]
    if not rows:
        raise BadInput(f"{args.outdir}: no NAME.seconds of {', '.join(args.names)}")
    print("wall: seconds from mpirun's start to its end. Rule columns: rank-cases (each rank of "
          "each case) that stopped on the rule. Time columns (seconds, rank 0): start-up, the "
          "Measurer's phases summed over the cases, the suites' other work, the gather, and the "
          "launch (the wall time beyond: processes, libraries, MPI, the report)")
    print(format_table(rows))
    over = over_limits(rows, limits)
    for line in over:
        print(f"over its limit: {line}")
    if limits and not over:
        print(f"within every limit: {', '.join(args.at_most)}")
    return 1 if over else 0
