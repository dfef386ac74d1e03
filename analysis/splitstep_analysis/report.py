"""One HTML page per run, pictures first: per file its verdict line, a row of every figure `plot`
draws, then its metadata, a summary table per suite (each median with its uncertainty), the
derived figures with the diagnosis; given two files or more, the scaling figure where they make
a line, and the comparison of each with the first (after what differs between the two runs);
with --parity, parity.py's rows drawn. The page is one self-contained file (figures as inline
PNG, no script or style from elsewhere), so that it opens offline and travels as one attachment.

  splitstep-analysis report results.json [more.json ...] -o report.html
"""
import base64
import html
import io
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .compare import compare_documents  # noqa: E402
from .compare_text import format_time  # noqa: E402
from .differences import run_differences  # noqa: E402
from .launches import paired, read_eager  # noqa: E402
from .plot import (figures_for, launches_figure, parity_figure, read_parity,  # noqa: E402
                   scaling_figure, scaling_rows)
from .results import load_findings  # noqa: E402
from .schema import BadInput, read_results  # noqa: E402

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; color: #222;
  padding: 0 1em; }
h1 { font-size: 1.4em; margin: 0 0 0.4em; }
h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.02em; margin: 0.8em 0 0.2em; }
table { border-collapse: collapse; margin: 0.3em 0 0.8em; }
th, td { padding: 1px 8px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th { background: #f4f4f4; font-weight: 600; }
.figures { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 0.6em 1em;
  align-items: start; margin: 0.6em 0; }
figure { margin: 0; } figure img { width: 100%; height: auto; display: block; }
figure.wide { grid-column: 1 / -1; }
figcaption { font-size: 0.85em; color: #666; }
.suites { display: flex; flex-wrap: wrap; gap: 0 2em; align-items: flex-start; }
details > summary { cursor: pointer; color: #335; margin: 0.2em 0; }
p.verdict { font-size: 1.15em; font-weight: 600; padding: 0.4em 0.6em; background: #f4f4f4;
  border-left: 4px solid #4c72b0; margin: 0.4em 0; }
.slower { color: #b00; } .faster { color: #070; } .note { color: #666; font-size: 0.9em; }
"""

# What the page's layout came to, for a browser test to read back from the DOM: how many
# figures there are and rendered, how many tables, where the first figure and the first table
# shown (not folded away) begin, and the page's height, in CSS pixels.
SCRIPT = """
window.addEventListener("load", () => {
  const top = e => e ? Math.round(e.getBoundingClientRect().top + window.scrollY) : -1;
  const images = Array.from(document.images);
  const shown = images.filter(i => i.complete && i.naturalWidth > 0).length;
  const tables = Array.from(document.querySelectorAll("table"));
  const body = document.body.dataset;
  body.figures = images.length;
  body.figuresShown = shown;
  body.tables = tables.length;
  body.firstFigureTop = top(images[0]);
  body.firstTableTop = top(tables.find(t => t.getClientRects().length > 0));
  body.height = document.documentElement.scrollHeight;
});
"""

# A table longer than this is folded in a <details> element, its first line saying what it holds.
FOLD_ROWS = 12
# A figure at least this wide (inches) takes the whole row of the grid: its text would be too
# small at half the page (the bucket ledger's panels side by side).
WIDE_INCHES = 11.0
# A derived figure shown folded: the bucket ledger (one figure per bucket and mode; the figure
# draws it) and the projection's check (`splitstep-analysis projection` is its own page).
FOLDED_TAGS = ("/ledger/", "/projection/")


# --- numbers with their units (pure functions) ---------------------------------------------

def format_number(value):
    """4 significant digits, with thousands separated from 10,000 on: 701.5, 55.15, 701,554."""
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:,.0f}" if abs(value) >= 1e4 else f"{value:.4g}"


def format_bytes(value):
    """Bytes in binary units: 8 -> '8 B', 67108864 -> '64 MiB', 1.5e6 -> '1.431 MiB'."""
    if value is None or not math.isfinite(value):
        return "-"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(value) >= scale:
            return f"{value / scale:.4g} {unit}"
    return f"{value:.4g} B"


def format_percent(value, digits=2):
    """A share given in percent: 94.32 -> '94.32%'."""
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:.{digits}f}%"


def format_value(value, unit):
    """A derived figure in its unit: times as %timeit writes them, bytes in KiB/MiB/GiB,
    percentages, a rank by its number, and any other unit after its number (TFLOP/s, GB/s,
    MHz, samples/s)."""
    if not isinstance(value, (int, float)):
        return "-" if value is None else str(value)
    if unit == "s":
        return format_time(value)
    if unit == "B":
        return format_bytes(value)
    if unit == "%":
        return format_percent(value, 1)
    if unit == "rank":  # the slowest rank: "rank 1", not "1 rank"
        return f"rank {value:.0f}"
    return f"{format_number(value)} {unit}".strip()


# --- uncertainty and checks of a case (pure functions of the JSON's case) -------------------

MEDIAN_CONFIDENCE = 0.95  # an interval of lower coverage (too few samples) is not reported


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value)


def median_reach(case):
    """How far the 95% interval of a rank's median reaches from it, relative to the median,
    the largest over ranks (as the console's ±ci): None where a rank has no interval (a file
    from before median_ci) or too few samples for a 95% one."""
    reach = 0.0
    for rank in case.get("ranks", []):
        interval, summary = rank.get("median_ci"), rank.get("summary")
        median = summary.get("median") if isinstance(summary, dict) else None
        if not isinstance(interval, dict) or not all(
                _is_number(v) for v in (median, interval.get("low"), interval.get("high"),
                                        interval.get("coverage"))) or \
                interval["coverage"] < MEDIAN_CONFIDENCE:
            return None
        if median:
            reach = max(reach, max(median - interval["low"], interval["high"] - median) /
                        abs(median))
    return reach if case.get("ranks") else None


def largest_noise(case):
    """std/mean of a rank's samples, the largest over ranks; None where no rank has it."""
    noises = [rank["noise"] for rank in case.get("ranks", []) if _is_number(rank.get("noise"))]
    return max(noises) if noises else None


def was_checked(case):
    """True where a check verified elements of the case's output (check.checked > 0)."""
    check = case.get("check")
    return isinstance(check, dict) and _is_number(check.get("checked")) and check["checked"] > 0


def wrong_cell(case):
    """The elements a check found wrong, or "N/A" where none was checked (matmul, membw and
    the step check nothing: "0 wrong" there would claim a check that did not run)."""
    if not was_checked(case):
        return "N/A"
    wrong = case["check"].get("wrong")
    return str(wrong) if _is_number(wrong) else "-"


# --- HTML pieces ----------------------------------------------------------------------------

def _cell(value):
    if value is None or (isinstance(value, float) and value != value):
        return "<td></td>"
    if isinstance(value, (int, float)):
        return f'<td class="n">{value:.4g}</td>' if isinstance(value, float) else \
            f'<td class="n">{value}</td>'
    return f"<td>{html.escape(str(value))}</td>"


def _number_cell(text):
    """A cell of a number already formatted with its unit, aligned right."""
    return f'<td class="n">{html.escape(text)}</td>'


def table(header, rows, numeric=()):
    """An HTML table of `rows` (lists of cells) under `header`; the columns named in `numeric`
    hold formatted numbers (text), aligned right."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(
        _number_cell(v) if h in numeric and isinstance(v, str) else _cell(v)
        for h, v in zip(header, row)) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def folded(label, content, rows):
    """`content` inside a closed <details> whose line names it and its size, where it is longer
    than FOLD_ROWS rows or is always folded (rows None); else as it is."""
    if rows is not None and rows <= FOLD_ROWS:
        return content
    return f"<details><summary>{html.escape(label)}</summary>{content}</details>"


def figure_html(plot):
    buffer = io.BytesIO()
    wide = plot.figure.get_size_inches()[0] >= WIDE_INCHES
    plot.figure.savefig(buffer, format="png", dpi=90)
    plt.close(plot.figure)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    kind = ' class="wide"' if wide else ""
    return (f'<figure{kind}><img alt="{html.escape(plot.name)}" '
            f'src="data:image/png;base64,{data}"><figcaption>{html.escape(plot.name)}'
            f"</figcaption></figure>")


def figures_html(plots):
    """The figures as a grid, two to a row (a wide one alone)."""
    if not plots:
        return ""
    return '<div class="figures">' + "".join(figure_html(p) for p in plots) + "</div>"


def metadata_html(path, document):
    meta = document["metadata"]
    devices = sorted({r.get("device_name", "") for r in document.get("ranks", [])} - {""})
    rows = [("file", path), ("command", meta.get("command_line", "")),
            ("revision", meta.get("git_revision", "")), ("started", meta.get("started_utc", "")),
            ("ranks", meta.get("world_size", "")), ("GPUs", ", ".join(devices) or "none"),
            ("versions", ", ".join(f"{k.replace('_version', '')} {meta[k]}" for k in
                                   ("libtorch_version", "cuda_runtime_version", "nccl_version")
                                   if meta.get(k))),
            ("ended", document.get("ended") or "(still running)")]
    return table(["", ""], [(name, str(value)) for name, value in rows])


def verdict_line(document):
    """The run's one-line verdict against the reference figures: the first finding of its
    derived result of suite "verdict"; None when the run has none (no reference matched, or a
    file from before verdicts)."""
    findings = load_findings(document)
    said = findings[findings["suite"] == "verdict"]["finding"]
    return None if said.empty else said.iloc[0]


# --- summary per suite ----------------------------------------------------------------------

SUMMARY_LEGEND = ("median: the median of the ranks' medians; ±ci: how far the 95% interval of "
                  "a rank's median reaches from it, the largest over ranks (- where a rank took "
                  "too few samples for one, or the file is older than intervals); noise: "
                  "std/mean of a rank's samples, the largest over ranks; wrong: the elements a "
                  "check found wrong, N/A where the case was not checked. A step's phases are "
                  "in its figure.")


def suite_rows(cases, ranks):
    """(header, rows) of a table of `cases` (the JSON's, of one suite): case, the series where
    they differ, median, ±ci, noise, the slowest rank where there are several, each rate the
    cases have, and wrong where some case was checked."""
    series = len({c["series"] for c in cases}) > 1
    rates = list(dict.fromkeys(name for c in cases for name in c.get("rates", {})))
    checked = any(was_checked(c) for c in cases)
    header = ["case"] + (["series"] if series else []) + ["median", "±ci", "noise"] + \
        (["slowest rank"] if ranks > 1 else []) + rates + (["wrong"] if checked else [])
    rows = []
    for c in cases:
        reach, noise = median_reach(c), largest_noise(c)
        rows.append([c["case"]] + ([c["series"]] if series else []) + [
            format_time(c["across_ranks"]["median"]),
            "-" if reach is None else "±" + format_percent(100 * reach),
            "-" if noise is None else format_percent(100 * noise)] +
            ([c.get("slowest_rank")] if ranks > 1 else []) +
            [format_number(c.get("rates", {}).get(r)) for r in rates] +
            ([wrong_cell(c)] if checked else []))
    return header, rows


def _numeric(header):
    """The columns of a summary table that hold numbers: all but the case and its series."""
    return [h for h in header if h not in ("case", "series")]


def summary_html(document):
    """Per suite: each measured series of a whole case, its median over ranks with its ±ci and
    noise, the slowest rank, its rates and its check. A step's phases are in its figure; its
    detail series (the bucket ledger, packing) are folded below its table, and a table longer
    than FOLD_ROWS is folded whole."""
    measured = [c for c in document["cases"] if not c.get("skipped", False)]
    if not measured:
        return "<p>No case was measured.</p>"
    ranks = document["metadata"].get("world_size") or 1
    suites = {}
    for c in measured:
        if not c.get("part_of"):
            suites.setdefault(c["suite"], []).append(c)
    parts = []
    for suite, cases in suites.items():
        wholes = [c for c in cases if not c.get("detail", False)]
        details = [c for c in cases if c.get("detail", False)]
        block = f"<h3>{html.escape(suite)}</h3>"
        if wholes:
            header, rows = suite_rows(wholes, ranks)
            block += folded(f"{len(rows)} cases", table(header, rows, numeric=_numeric(header)),
                            len(rows))
        if details:
            header, rows = suite_rows(details, ranks)
            block += folded(f"{len(rows)} detail series (bucket ledger, packing: drawn in the "
                            "figures)", table(header, rows, numeric=_numeric(header)), None)
        parts.append(f"<section>{block}</section>")
    return (f'<p class="note">{html.escape(SUMMARY_LEGEND)}</p>'
            f'<div class="suites">{"".join(parts)}</div>')


# --- derived figures ------------------------------------------------------------------------

def _interval_text(figure):
    interval = figure.get("interval")
    if not isinstance(interval, list) or len(interval) != 2:
        return ""
    unit = figure.get("unit", "")
    return f"{format_value(interval[0], unit)} … {format_value(interval[1], unit)}"


def _indented(name):
    """A figure's name with its leading spaces kept (HTML would fold them): the parts of a
    difference are named indented under it ("  backward slowdown")."""
    name = str(name)
    stripped = name.lstrip(" ")
    return "\u00a0" * 2 * (len(name) - len(stripped)) + stripped


def _figure_rows(figures, intervals):
    return [[_indented(f.get("name") or f["tag"]), format_value(f["value"], f.get("unit", ""))] +
            ([_interval_text(f)] if intervals else []) + [f.get("note", "")] for f in figures]


def _figures_table(figures):
    intervals = any(_interval_text(f) for f in figures)
    header = ["figure", "value"] + (["95% interval"] if intervals else []) + ["note"]
    return table(header, _figure_rows(figures, intervals),
                 numeric=("value", "95% interval"))


def _is_folded(figure):
    return figure.get("detail", False) or any(t in figure["tag"] for t in FOLDED_TAGS)


def _shape(derived):
    """What makes derived results one table: the same title and the same figures by name and
    unit (the latency-bandwidth fit of each collective)."""
    return (derived.get("title", ""), tuple((f.get("name"), f.get("unit"))
                                            for f in derived["figures"]))


def _findings_html(findings):
    return "<ul>" + "".join(f"<li>{html.escape(f)}</li>" for f in findings) + "</ul>" \
        if findings else ""


def _alike_html(group):
    """One table for derived results of one shape: a row per suite and subject, a column per
    figure, folded (the fits of nine collectives are a table of nine rows, not nine tables)."""
    first = group[0]
    names = [f.get("name", f["tag"]) for f in first["figures"]]
    rows = [[f"{d.get('suite')} {d.get('subject')}"] +
            [format_value(f["value"], f.get("unit", "")) for f in d["figures"]] +
            ["; ".join(f"{f.get('name')}: {f['note']}" for f in d["figures"] if f.get("note"))]
            for d in group]
    content = table(["suite and subject"] + names + ["notes"], rows, numeric=names)
    content += _findings_html([f"{d.get('suite')} {d.get('subject')}: {finding}"
                               for d in group for finding in d.get("findings", [])])
    title = first.get("title") or "derived figures"
    return (f"<h3>{html.escape(title)}</h3>" +
            folded(f"{len(group)} results, {len(names)} figures each", content, None))


def _derived_html(derived):
    """One derived result: its figures (the folded ones in a <details> below) and findings."""
    shown = [f for f in derived["figures"] if not _is_folded(f)]
    hidden = [f for f in derived["figures"] if _is_folded(f)]
    title = " ".join(str(p) for p in (derived.get("suite"), derived.get("subject")) if p)
    if derived.get("title"):
        title += f": {derived['title']}"
    block = f"<h3>{html.escape(title)}</h3>"
    if shown:  # open, however long: the step's times, parts and overlap are its diagnosis
        block += _figures_table(shown)
    if hidden:
        kinds = [what for tag, what in (("/ledger/", "the bucket ledger"),
                                        ("/projection/", "the projection's check"))
                 if any(tag in f["tag"] for f in hidden)] or ["detail"]
        block += folded(f"{len(hidden)} figures of {' and '.join(kinds)}",
                        _figures_table(hidden), None)
    return block + _findings_html(derived.get("findings", []))


def derived_html(document):
    """Each derived result with its findings, values in their units; results alike in shape
    (the same title and figures) share one folded table."""
    results = document.get("derived", [])
    if not results:
        return "<p>No figure derived from several cases.</p>"
    groups = {}
    for derived in results:
        groups.setdefault(_shape(derived), []).append(derived)
    parts, done = [], set()
    for derived in results:
        shape = _shape(derived)
        if len(groups[shape]) < 2:
            parts.append(_derived_html(derived))
        elif shape not in done:
            done.add(shape)
            parts.append(_alike_html(groups[shape]))
    return "".join(parts)


# --- several files ---------------------------------------------------------------------------

def scaling_html(documents):
    """The scaling figure where the files make a line: some workload and mode measured at two
    rank counts or more with peers. A single point (one file, or a one-rank run, whose
    T_1 / T_N is no scaling point) is no line, and its figure is left out: the efficiency is
    in the derived figures."""
    rows = scaling_rows(documents)
    counts = {}
    for row in rows:
        if row["ranks"] and row["ranks"] > 1:
            counts.setdefault((row["workload"], row["mode"]), set()).add(row["ranks"])
    if not any(len(c) >= 2 for c in counts.values()):
        return ""
    return "<h2>Scaling</h2>" + figures_html([scaling_figure(documents)])


def comparison_html(first, other, path):
    frame = compare_documents(first, other)
    rows = [[r["suite"], r["case"], r["series"], format_time(r["baseline_median_s"]),
             format_time(r["candidate_median_s"]),
             "-" if r["ratio"] != r["ratio"] else f"{(r['ratio'] - 1) * 100:+.2f}%",
             r["verdict"]] for _, r in frame.iterrows()]
    counts = frame["verdict"].value_counts().to_dict()
    said = ", ".join(f"{n} {verdict}" for verdict, n in counts.items())
    differences = run_differences([first], [other])
    differ = table(["what differs", "name", "first", "this"], differences) if differences \
        else "<p>The plans, versions, GPUs and environment are the same.</p>"
    return (f"<h3>{html.escape(path)} against the first file</h3>" + differ +
            f"<p>{html.escape(said)}</p>" +
            folded(f"{len(rows)} cases compared",
                   table(["suite", "case", "series", "first", "this", "change", "verdict"], rows,
                         numeric=("first", "this", "change")), len(rows)))


def _ratio(numerator, denominator):
    return f"{numerator / denominator:.2f}x" if numerator and denominator else "-"


def launches_html(rows):
    """A step's three figures (launches.Launches rows): a figure and its table."""
    if not rows:
        return ""
    header = ["case", "eager PyTorch", "splitstep", "graphed", "kernel time",
              "eager PyTorch / splitstep", "splitstep / graphed", "eager file"]
    cells = [[r.case, format_time(r.eager_s), format_time(r.splitstep_s),
              format_time(r.graphed_s) if r.graphed_s is not None else
              (f"not graphed: {r.graphed_why}" if r.graphed_why else "not asked"),
              format_time(r.kernel_s) if r.kernel_s is not None else "-",
              _ratio(r.eager_s, r.splitstep_s), _ratio(r.splitstep_s, r.graphed_s),
              os.path.basename(r.eager_file)] for r in rows]
    return ("<h3>One step, three figures: eager PyTorch, splitstep, graphed</h3>" +
            figures_html([launches_figure(rows)]) +
            table(header, cells, numeric=("eager PyTorch", "splitstep", "kernel time",
                                          "eager PyTorch / splitstep", "splitstep / graphed")))


def run_html(path, document, launches=()):
    """One file's section: verdict, figures, the step's three figures (--eager), metadata,
    summary, derived figures."""
    verdict = verdict_line(document)
    return (f"<h2>{html.escape(os.path.basename(path))}</h2>" +
            (f'<p class="verdict">{html.escape(verdict)}</p>' if verdict else "") +
            figures_html(figures_for(document)) + launches_html(launches) +
            "<h2>Run</h2>" + metadata_html(path, document) +
            "<h2>Summary</h2>" + summary_html(document) +
            "<h2>Derived figures and diagnosis</h2>" + derived_html(document))


def page(documents, parity=None, eagers=()):
    """The HTML text of the page for [(path, document), ...], parity.py's rows (a DataFrame
    from read_parity) where given, and the eager PyTorch runs [(path, eager document), ...]
    beside the step cases they stand for."""
    launches = paired(documents, eagers)
    sections = [scaling_html(documents)] if len(documents) > 1 else []
    sections += [run_html(path, document, launches[path]) for path, document in documents]
    if parity is not None:
        sections.append("<h2>Parity with the library's model</h2>" +
                        figures_html([parity_figure(parity)]))
    if len(documents) > 1:
        first = documents[0][1]
        sections.append("<h2>Comparison</h2>" + "".join(
            comparison_html(first, document, path) for path, document in documents[1:]))
    title = "splitstep: " + ", ".join(os.path.basename(p) for p, _ in documents)
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style>"
            f"<script>{SCRIPT}</script></head><body><h1>{html.escape(title)}</h1>"
            + "".join(sections) + "</body></html>\n")


def add_arguments(parser):
    parser.add_argument("results", nargs="+", help="results files (schema v1 or v2); with more "
                                                   "than one, each is compared with the first")
    parser.add_argument("-o", "--output", required=True, metavar="PAGE",
                        help="the HTML file to write")
    parser.add_argument("--eager", metavar="JSON", action="append", default=[],
                        help="a `splitstep-analysis eager --json` file, shown beside the step "
                             "case it stands for with splitstep's step and its graphed step "
                             "(repeatable)")
    parser.add_argument("--parity", metavar="CSV",
                        help="tests/reference/parity.py's --csv output, drawn on the page")


def run(args):
    documents = [(path, read_results(path)) for path in args.results]
    if os.path.isdir(args.output):
        raise BadInput(f"-o: '{args.output}' is a folder")
    eagers = [(path, read_eager(path)) for path in args.eager]
    text = page(documents, read_parity(args.parity) if args.parity else None, eagers)
    temporary = args.output + ".tmp"
    with open(temporary, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temporary, args.output)
    print(args.output)
    return 0
