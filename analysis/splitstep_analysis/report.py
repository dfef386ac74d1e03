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
from .report_cells import folded, table  # noqa: E402
from .report_derived import derived_html  # noqa: E402
from .report_summary import summary_html  # noqa: E402
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

# --- figures and metadata --------------------------------------------------------------------

# A figure at least this wide (inches) takes the whole row of the grid: its text would be too
# small at half the page (the bucket ledger's panels side by side).
WIDE_INCHES = 11.0


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
