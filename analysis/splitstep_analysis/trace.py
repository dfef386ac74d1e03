"""Draws a splitstep trace (--trace FILE, Chrome trace event JSON, plain or gzip-compressed as
results/ holds them) to PNG, SVG or PDF, for where no browser is at hand: the file itself opens
in ui.perfetto.dev or chrome://tracing.

For each rank (a process of the trace) one panel of tracks, as Perfetto lays them out: the host
(cases, the measurement's phases, checks), the working stream (timed samples, a step's phases)
and the communication stream (a step's gradient buckets); nested spans stack downwards. Below
it, the rank's telemetry counters: SM clock on the left axis, power on the right, and the
times a clock limit (the power cap, ...) held, shaded.

  splitstep-analysis trace trace.json -o trace.png                 the whole run
  splitstep-analysis trace trace.json.gz -o step.png --case "step mlp bf16 overlap" --steps 3
  splitstep-analysis trace trace.json -o window.png --from 1200 --to 1450   ms from the start

Exit status 2 for a file that is not such a trace or for bad options.
"""
import json
import os
import sys

import matplotlib

if "ipykernel" not in sys.modules:  # headless, except in a notebook that shows the figures
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .schema import BadInput, read_json  # noqa: E402

TRACKS = ("host", "working stream", "communication stream")
FORMATS = ("png", "svg", "pdf")
CATEGORY_COLORS = {"case": "#c7c7c7", "measure": "#9ecae1", "check": "#fdd0a2",
                   "sample": "#6baed6", "untimed": "#bdbdbd", "collective": "#e6550d"}
PHASE_COLORS = {"data": "#8c8c8c", "forward": "#4c72b0", "loss": "#dd8452",
                "backward": "#55a868", "sync": "#c44e52", "optimizer": "#8172b3"}
CLOCK = "SM clock (MHz)"
POWERS = ("power (W)", "power, 1 s average (W)")
LIMITS = "clock limited by"


class TraceError(BadInput):
    """A file that is not a splitstep trace, or a window without anything in it; the message
    names it."""


def read_trace(path):
    """The trace's processes, spans and counters:
    ({pid: name}, {pid: {track: [span...]}}, {pid: {counter: [(ts, args)...]}});
    a span is a dict with ts, dur (microseconds), name and cat."""
    document = read_json(path, TraceError)
    try:
        events = document["traceEvents"]
        iter(events)
    except (KeyError, TypeError) as error:
        raise TraceError(f"{path}: not a Chrome trace (no traceEvents: {error})") from None
    processes, threads, spans, counters = {}, {}, {}, {}
    for event in events:
        try:
            ph, pid = event["ph"], event["pid"]
            if ph == "M" and event["name"] == "process_name":
                processes[pid] = event["args"]["name"]
            elif ph == "M" and event["name"] == "thread_name":
                threads[(pid, event["tid"])] = event["args"]["name"]
            elif ph == "X":
                spans.setdefault(pid, {}).setdefault(event["tid"], []).append(
                    {"ts": float(event["ts"]), "dur": float(event["dur"]),
                     "name": event["name"], "cat": event.get("cat", "")})
            elif ph == "C":
                counters.setdefault(pid, {}).setdefault(event["name"], []).append(
                    (float(event["ts"]), event["args"]))
        except (KeyError, TypeError, ValueError) as error:
            raise TraceError(f"{path}: malformed event {json.dumps(event)[:80]} ({error})") \
                from None
    by_track = {}
    for pid, per_tid in spans.items():
        for tid, items in per_tid.items():
            track = threads.get((pid, tid), f"thread {tid}")
            by_track.setdefault(pid, {}).setdefault(track, []).extend(items)
    for pid in set(by_track) | set(counters):
        processes.setdefault(pid, f"process {pid}")
    return processes, by_track, counters


def lanes(spans):
    """Each span's depth: a span inside an earlier one goes one lane below it, as a viewer
    nests slices of one thread."""
    ordered = sorted(spans, key=lambda s: (s["ts"], -s["dur"]))
    open_ends, placed = [], []
    for span in ordered:
        while open_ends and open_ends[-1] <= span["ts"]:
            open_ends.pop()
        placed.append((span, len(open_ends)))
        open_ends.append(span["ts"] + span["dur"])
    return placed


def window_of_case(by_track, case, steps):
    """(from, to) in microseconds: the samples of `case` on the lowest rank that ran it, the
    first `steps` of them (all without), or None."""
    for pid in sorted(by_track):
        samples = sorted((s for s in by_track[pid].get("working stream", [])
                          if s["cat"] == "sample" and s["name"] == case), key=lambda s: s["ts"])
        if samples:
            chosen = samples[:steps] if steps else samples
            start = chosen[0]["ts"]
            end = chosen[-1]["ts"] + chosen[-1]["dur"]
            margin = 0.02 * (end - start)
            return start - margin, end + margin
    return None


def _color(span):
    if span["cat"] == "phase":
        return PHASE_COLORS.get(span["name"], "#4c72b0")
    return CATEGORY_COLORS.get(span["cat"], "#9e9e9e")


def _draw_tracks(axes, tracks, start, end):
    rows, labels, y = [], [], 0
    for track in list(TRACKS) + sorted(set(tracks) - set(TRACKS)):
        visible = [s for s in tracks.get(track, []) if s["ts"] + s["dur"] >= start and
                   s["ts"] <= end]
        placed = lanes(visible)
        depth = 1 + max((d for _, d in placed), default=0)
        for span, d in placed:
            top = y + d
            left = max(span["ts"], start)
            width = min(span["ts"] + span["dur"], end) - left
            axes.broken_barh([(left / 1e3, max(width, 0) / 1e3)], (top + 0.1, 0.8),
                             facecolors=_color(span), edgecolors="none")
            if width > 0.06 * (end - start):
                axes.text((left + width / 2) / 1e3, top + 0.5, span["name"], ha="center",
                          va="center", fontsize=6, clip_on=True)
        rows.append(y + depth / 2)
        labels.append(track)
        y += depth + 0.5
    axes.set_ylim(y, 0)
    axes.set_yticks(rows)
    axes.set_yticklabels(labels, fontsize=7)


def _series(points, key, start, end):
    inside = [(t, args[key]) for t, args in points if start <= t <= end and key in args]
    return [t / 1e3 for t, _ in inside], [v for _, v in inside]


def _draw_counters(axes, counters, start, end):
    drew = False
    if CLOCK in counters:
        x, v = _series(counters[CLOCK], "value", start, end)
        axes.plot(x, v, color="#4c72b0", lw=1, label="SM clock")
        axes.set_ylabel("SM clock (MHz)", fontsize=7)
        axes.set_ylim(0, max(v, default=0) * 1.1 or None)  # from zero: a 2% dip looks like one
        drew = drew or bool(x)
    power = next((name for name in POWERS if name in counters), None)
    if power:
        right = axes.twinx()
        x, v = _series(counters[power], "value", start, end)
        right.plot(x, v, color="#c44e52", lw=1, label=power)
        right.set_ylabel(power, fontsize=7)
        right.set_ylim(0, max(v, default=0) * 1.1 or None)
        right.tick_params(labelsize=6)
        drew = drew or bool(x)
    for limit, color in (("power cap", "#fdae6b"), ("thermal (software)", "#fb6a4a"),
                         ("hardware slowdown", "#de2d26")):
        x, held = _series(counters.get(LIMITS, []), limit, start, end)
        for i, on in enumerate(held):
            if on and i + 1 < len(x):
                axes.axvspan(x[i], x[i + 1], color=color, alpha=0.25, lw=0)
    axes.tick_params(labelsize=6)
    return drew


def draw(processes, by_track, counters, start=None, end=None):
    """The figure: per process its tracks, and its counters where it has any."""
    times = [s["ts"] for tracks in by_track.values() for items in tracks.values() for s in items]
    times += [s["ts"] + s["dur"] for tracks in by_track.values() for items in tracks.values()
              for s in items]
    times += [t for per in counters.values() for points in per.values() for t, _ in points]
    if not times:
        raise TraceError("the trace holds no spans or counters")
    start = min(times) if start is None else start
    end = max(times) if end is None else end
    if end <= start:
        raise TraceError("the window is empty")
    pids = sorted(processes)
    heights = []
    for pid in pids:
        heights.append(3)
        if counters.get(pid):
            heights.append(1.2)
    figure, axes = plt.subplots(len(heights), 1, sharex=True, squeeze=False,
                                figsize=(12, 0.9 * sum(heights) + 1),
                                gridspec_kw={"height_ratios": heights})
    row = 0
    for pid in pids:
        _draw_tracks(axes[row][0], by_track.get(pid, {}), start, end)
        axes[row][0].set_title(processes[pid], fontsize=8, loc="left")
        row += 1
        if counters.get(pid):
            _draw_counters(axes[row][0], counters[pid], start, end)
            row += 1
    axes[-1][0].set_xlim(start / 1e3, end / 1e3)
    axes[-1][0].set_xlabel("ms from the start of the trace (rank 0's clock)")
    figure.set_layout_engine("tight")
    return figure


def add_arguments(parser):
    parser.add_argument("trace", help="a trace written by splitstep --trace (.json or .json.gz)")
    parser.add_argument("-o", "--output", required=True,
                        help="the figure's path; its extension picks the format (png, svg, pdf)")
    parser.add_argument("--case", help="show the samples of this case (as the trace names it, "
                        "e.g. 'step mlp bf16 overlap') on the lowest rank that ran it")
    parser.add_argument("--steps", type=int, default=0,
                        help="with --case: only its first STEPS samples")
    parser.add_argument("--from", dest="start", type=float,
                        help="window start, ms from the start of the trace")
    parser.add_argument("--to", dest="end", type=float, help="window end, ms")


def run(args):
    extension = os.path.splitext(args.output)[1].lstrip(".").lower()
    if extension not in FORMATS:
        raise BadInput(f"--output: the extension must be one of {', '.join(FORMATS)}")
    processes, by_track, counters = read_trace(args.trace)
    start = None if args.start is None else args.start * 1e3
    end = None if args.end is None else args.end * 1e3
    if args.case:
        window = window_of_case(by_track, args.case, args.steps)
        if window is None:
            raise TraceError(f"{args.trace}: no samples of case '{args.case}'")
        start, end = window
    figure = draw(processes, by_track, counters, start, end)
    figure.savefig(args.output, dpi=150)
    plt.close(figure)
    print(args.output)
    return 0
