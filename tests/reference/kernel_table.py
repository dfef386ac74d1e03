#!/usr/bin/env python3
"""Two chrome traces (Kineto's JSON: torch.profiler's, or LibTorch's from splitstep) side by
side, kernel by kernel: where a gap between splitstep and its PyTorch twin comes from.

  kernel_table.py splitstep-trace.json twin-mlp-rank0.json --steps 3 [--top 25]

GPU kernels (events whose `cat` is "kernel") are summed by name over each whole trace and
divided by the number of steps it profiled; the table lists the kernels with the largest time
per step in either trace, then both totals and the kernels only one trace has. parity.py holds
the two kernel lists (names and calls per step) to each other with `list_differences`.

A CPU run launches no kernels: --cpu-ops takes its ATen operations that compute instead, at every
depth of their nesting: neither views (their schema returns an alias of an input, unwritten:
view, t, expand, detach, ...) nor allocations (empty, empty_strided, resize_). --check exits 1 when the two
lists differ in names or calls per step.
"""
import argparse
import functools
import gzip
import json
import sys
from typing import NamedTuple


class KernelTime(NamedTuple):
    microseconds: float  # per step
    calls: float         # per step


class TraceError(Exception):
    """A trace that cannot be read: one line, exit status 2."""


def read_events(path):
    """The trace's event list."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            document = json.load(f)
    except (OSError, ValueError) as e:
        raise TraceError(f"{path}: {e}")
    events = document.get("traceEvents", []) if isinstance(document, dict) else document
    if not isinstance(events, list):
        raise TraceError(f"{path}: no traceEvents list")
    return events


def scoped(events, prefix):
    """A test of (thread, time): inside a user scope whose name starts with `prefix` on that
    thread; everything passes without a prefix."""
    scopes = [(e.get("tid"), float(e["ts"]), float(e["ts"]) + float(e["dur"])) for e in events
              if prefix is not None and e.get("cat") == "user_annotation" and "dur" in e
              and str(e.get("name", "")).startswith(prefix)]

    def inside(tid, time):
        return prefix is None or any(t == tid and begin <= time <= end
                                     for t, begin, end in scopes)
    return inside


def load_kernels(path, steps, within=None):
    """{kernel name: KernelTime per step} of one trace. `within`: only the kernels launched (their
    runtime call, by correlation id) inside a user scope whose name starts with it."""
    events = [e for e in read_events(path) if isinstance(e, dict)]
    inside = scoped(events, within)
    launches = {e.get("args", {}).get("correlation"): (e.get("tid"), float(e.get("ts", 0)))
                for e in events if within is not None
                and e.get("cat") in ("cuda_runtime", "cuda_driver")}
    totals = {}
    for event in events:
        if event.get("cat") != "kernel":
            continue
        if within is not None and not inside(
                *launches.get(event.get("args", {}).get("correlation"), (None, 0.0))):
            continue
        name = event.get("name", "?")
        duration, calls = totals.get(name, (0.0, 0))
        totals[name] = (duration + float(event.get("dur", 0)), calls + 1)
    return {name: KernelTime(duration / steps, calls / steps)
            for name, (duration, calls) in totals.items()}


# Operations whose schema does not say what they are: an allocation, a view made without alias
# annotation, a dtype computed on the host.
NOT_COMPUTING = ("aten::resize_", "aten::_unsafe_view", "aten::result_type")


@functools.cache
def computes(name):
    """Whether ATen operation `name` ("aten::addmm") computes: not a view, not an allocation."""
    import torch

    if not name.startswith("aten::"):
        return False
    if name.startswith(("aten::empty", "aten::new_empty")) or name in NOT_COMPUTING:
        return False
    # The overloads on tensors (slice has one on strings, add on integers).
    schemas = [s for s in torch._C._jit_get_schemas_for_operator(name)
               if s.returns and all("Tensor" in str(r.type) for r in s.returns)]
    views = all(all(r.alias_info is not None and not r.alias_info.is_write for r in s.returns)
                for s in schemas)
    return not (schemas and views)


def load_cpu_ops(path, steps, within=None):
    """{operation name: KernelTime per step} of one trace's computing ATen operations, at every
    depth (linear and the addmm it calls: equal calls mean equal calls at each level), calls
    only: a CPU operation's time is not a kernel's. `within`: only those run inside a user
    scope whose name starts with it, on the scope's thread."""
    events = [e for e in read_events(path) if isinstance(e, dict) and "dur" in e]
    inside = scoped(events, within)
    calls = {}
    for event in events:
        if event.get("cat") == "cpu_op" and computes(name := event.get("name", "?")) \
                and inside(event.get("tid"), float(event["ts"])):
            calls[name] = calls.get(name, 0) + 1
    return {name: KernelTime(0.0, n / steps) for name, n in calls.items()}


def beyond_scopes(differences, scoped):
    """The differences (name, calls in a, calls in b) that the operations b ran inside its
    scopes (`scoped`, per step) do not explain: a may lack those, and nothing else."""
    none = KernelTime(0.0, 0.0)
    return [(n, x, y) for n, x, y in differences
            if not (y - scoped.get(n, none).calls - 1e-9 <= x <= y)]


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
    parser.add_argument("--cpu-ops", action="store_true",
                        help="CPU traces: the computing leaf ATen operations, not GPU kernels")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when the lists differ in names or calls per step")
    parser.add_argument("--left-out-scope", metavar="PREFIX",
                        help="with --check: the first trace may lack what the second ran "
                             "(or launched) inside user scopes named PREFIX...")
    args = parser.parse_args(argv)
    labels = args.labels.split(",")
    if len(labels) != 2:
        parser.error("--labels: two names, comma-separated")
    try:
        load = load_cpu_ops if args.cpu_ops else load_kernels
        first = load(args.first, args.steps[0])
        second = load(args.second, args.steps[1])
    except TraceError as e:
        print(f"kernel_table: {e}", file=sys.stderr)
        return 2
    print(f"{labels[0]}: {args.first} ({args.steps[0]} steps); "
          f"{labels[1]}: {args.second} ({args.steps[1]} steps)")
    print("\n".join(table(first, second, labels, args.top, args.width)))
    if not args.check:
        return 0
    differences = list_differences(first, second)
    if args.left_out_scope:
        left_out = load(args.second, args.steps[1], within=args.left_out_scope)
        explained = [d for d in differences if d not in beyond_scopes(differences, left_out)]
        differences = beyond_scopes(differences, left_out)
        if explained:
            print(f"{len(explained)} names {labels[0]} lacks, run by {labels[1]} inside its "
                  f"scopes '{args.left_out_scope}...':")
            for name, x, y in explained:
                print(f"  {x:>7.2f} {y:>7.2f}  {shorten(name, args.width)}")
    if not first or not second:
        print(f"FAIL: no {'operations' if args.cpu_ops else 'kernels'} in "
              f"{args.first if not first else args.second}")
        return 1
    if differences:
        print(f"FAIL: {len(differences)} of {len(set(first) | set(second))} names differ in calls "
              f"per step ({labels[0]}, {labels[1]}):")
        for name, x, y in differences:
            print(f"  {x:>7.2f} {y:>7.2f}  {shorten(name, args.width)}")
        return 1
    print(f"ok: {len(first)} names, the same calls per step"
          + (" beyond those scopes" if args.left_out_scope else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
