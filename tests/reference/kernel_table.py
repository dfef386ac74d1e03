#!/usr/bin/env python3
"""Two chrome traces (Kineto's JSON: torch.profiler's, or LibTorch's from splitstep) side by
side, kernel by kernel: where a gap between splitstep and its PyTorch twin comes from.

  kernel_table.py splitstep-trace.json twin-mlp-rank0.json --steps 3 [--top 25]

GPU kernels (events whose `cat` is "kernel") are summed by name over each whole trace and
divided by the number of steps it profiled; the table lists the kernels with the largest time
per step in either trace, then both totals and the kernels only one trace has. parity.py holds
the two kernel lists (names and calls per step) to each other with `list_differences`.
"""
import argparse
import gzip
import json
import sys
from typing import NamedTuple


class KernelTime(NamedTuple):
    microseconds: float  # per step
    calls: float         # per step


class TraceError(Exception):
    """A trace that cannot be read: one line, exit status 2."""


def load_kernels(path, steps):
    """{kernel name: KernelTime per step} of one trace."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            document = json.load(f)
    except (OSError, ValueError) as e:
        raise TraceError(f"{path}: {e}")
    events = document.get("traceEvents", []) if isinstance(document, dict) else document
    if not isinstance(events, list):
        raise TraceError(f"{path}: no traceEvents list")
    totals = {}
    for event in events:
        if not isinstance(event, dict) or event.get("cat") != "kernel":
            continue
        name = event.get("name", "?")
        duration, calls = totals.get(name, (0.0, 0))
        totals[name] = (duration + float(event.get("dur", 0)), calls + 1)
    return {name: KernelTime(duration / steps, calls / steps)
            for name, (duration, calls) in totals.items()}


def list_differences(a, b):
    """The kernels whose calls per step differ between `a` and `b` (one side's count 0 where
    only the other ran it), as (name, calls in a, calls in b), the longest-running first."""
    none = KernelTime(0.0, 0.0)
    names = [n for n in set(a) | set(b)
             if abs(a.get(n, none).calls - b.get(n, none).calls) > 1e-9]
    names.sort(key=lambda n: -max(a.get(n, none).microseconds, b.get(n, none).microseconds))
    return [(n, a.get(n, none).calls, b.get(n, none).calls) for n in names]


def shorten(name, width):
    return name if len(name) <= width else name[:width - 3] + "..."


def table(a, b, labels, top, width):
    """The report's lines for kernels `a` and `b` (per step), labelled `labels`."""
    none = KernelTime(0.0, 0.0)
    names = sorted(set(a) | set(b),
                   key=lambda n: -max(a.get(n, none).microseconds, b.get(n, none).microseconds))
    header = (f"{labels[0] + ' us':>14} {labels[1] + ' us':>14} {'difference':>11} "
              f"{'calls':>7} {'calls':>7}  kernel (per step)")
    lines = [header]
    for name in names[:top]:
        x, y = a.get(name, none), b.get(name, none)
        lines.append(f"{x.microseconds:>14.1f} {y.microseconds:>14.1f} "
                     f"{x.microseconds - y.microseconds:>+11.1f} {x.calls:>7.1f} {y.calls:>7.1f}  "
                     f"{shorten(name, width)}")
    total_a = sum(k.microseconds for k in a.values())
    total_b = sum(k.microseconds for k in b.values())
    lines.append("")
    lines.append(f"all kernels per step: {labels[0]} {total_a:.1f} us, {labels[1]} {total_b:.1f} "
                 f"us, difference {total_a - total_b:+.1f} us"
                 + (f" (ratio {total_a / total_b:.3f})" if total_b > 0 else ""))
    for label, mine, other in ((labels[0], a, b), (labels[1], b, a)):
        only = sorted((n for n in mine if n not in other), key=lambda n: -mine[n].microseconds)
        lines.append(f"only in {label}: {len(only)} kernel(s), "
                     f"{sum(mine[n].microseconds for n in only):.1f} us per step")
        for name in only:
            lines.append(f"  {mine[name].microseconds:>12.1f} us  {mine[name].calls:>7.1f} calls  "
                         f"{shorten(name, width)}")
    return lines


def steps_pair(text):
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not N or N,M")
    if len(values) not in (1, 2) or min(values) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not N or N,M (positive)")
    return values * 2 if len(values) == 1 else values


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", help="a chrome trace (e.g. splitstep's)")
    parser.add_argument("second", help="another chrome trace (e.g. the twin's)")
    parser.add_argument("--steps", type=steps_pair, default=[3, 3],
                        help="steps each trace profiled: N for both, or N,M (default 3)")
    parser.add_argument("--labels", default="splitstep,twin",
                        help="names of the two traces (default splitstep,twin)")
    parser.add_argument("--top", type=int, default=25, help="kernels listed (default 25)")
    parser.add_argument("--width", type=int, default=100, help="kernel names cut to this width")
    args = parser.parse_args(argv)
    labels = args.labels.split(",")
    if len(labels) != 2:
        parser.error("--labels: two names, comma-separated")
    try:
        first = load_kernels(args.first, args.steps[0])
        second = load_kernels(args.second, args.steps[1])
    except TraceError as e:
        print(f"kernel_table: {e}", file=sys.stderr)
        return 2
    print(f"{labels[0]}: {args.first} ({args.steps[0]} steps); "
          f"{labels[1]}: {args.second} ({args.steps[1]} steps)")
    print("\n".join(table(first, second, labels, args.top, args.width)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
