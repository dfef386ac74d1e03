"""One HTML page per run: its metadata, a summary table per suite, every figure `plot` draws, the
step's derived figures and diagnosis, and, given two files or more, the comparison of each with
the first (after what differs between the two runs), and with --parity parity.py's rows drawn.
The page is one self-contained file (figures as inline PNG, no script or style from
elsewhere), so that it opens offline and travels as one attachment.

  splitstep-analysis report results.json [more.json ...] -o report.html
"""
import base64
import html
import io
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .compare import compare_documents, format_time  # noqa: E402
from .differences import run_differences  # noqa: E402
from .plot import figures_for, parity_figure, read_parity  # noqa: E402
from .results import load_cases, load_derived, load_findings  # noqa: E402
from .schema import BadInput, read_results  # noqa: E402

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { padding: 2px 10px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f4f4f4; }
figure { display: inline-block; margin: 0.5em; } figure img { max-width: 560px; }
p.verdict { font-size: 1.15em; font-weight: 600; padding: 0.4em 0.6em; background: #f4f4f4;
  border-left: 4px solid #4c72b0; }
.slower { color: #b00; } .faster { color: #070; } .note { color: #666; }
"""

# Counts the figures that rendered, for a browser test to read back from the DOM.
SCRIPT = """
window.addEventListener("load", () => {
  const images = Array.from(document.images);
  const shown = images.filter(i => i.complete && i.naturalWidth > 0).length;
  document.body.dataset.figures = images.length;
  document.body.dataset.figuresShown = shown;
  document.body.dataset.tables = document.querySelectorAll("table").length;
});
"""


def _cell(value):
    if value is None or (isinstance(value, float) and value != value):
        return "<td></td>"
    if isinstance(value, (int, float)):
        return f'<td class="n">{value:.4g}</td>' if isinstance(value, float) else \
            f'<td class="n">{value}</td>'
    return f"<td>{html.escape(str(value))}</td>"


def table(header, rows):
    """An HTML table of `rows` (lists of cells) under `header`."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def figure_html(plot):
    buffer = io.BytesIO()
    plot.figure.savefig(buffer, format="png", dpi=90)
    plt.close(plot.figure)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (f'<figure><img alt="{html.escape(plot.name)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{html.escape(plot.name)}</figcaption></figure>")


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
    return table(["", ""], rows)


def verdict_line(document):
    """The run's one-line verdict against the reference figures: the first finding of its
    derived result of suite "verdict"; None when the run has none (no reference matched, or a
    file from before verdicts)."""
    findings = load_findings(document)
    said = findings[findings["suite"] == "verdict"]["finding"]
    return None if said.empty else said.iloc[0]


def summary_html(document):
    """Per suite: each measured series of a whole case (parts and detail series are in the
    figures), its median over ranks, the slowest rank, its rates and the check."""
    cases = load_cases(document)
    if cases.empty:
        return "<p>No case was measured.</p>"
    rate_columns = [c for c in cases.columns if "/s" in c]
    parts = []
    for suite, rows in cases.groupby("suite", sort=False):
        wholes = rows[rows["part_of"].fillna("") == ""] if "part_of" in rows else rows
        rates = [c for c in rate_columns if wholes[c].notna().any()]
        body = [[r["case"], r["series"], format_time(r["median_s"]), r.get("slowest_rank"),
                 *[r[c] for c in rates], r.get("wrong")] for _, r in wholes.iterrows()]
        parts.append(f"<h3>{html.escape(suite)}</h3>" +
                     table(["case", "series", "median", "slowest rank", *rates, "wrong"], body))
    return "".join(parts)


def derived_html(document):
    derived, findings = load_derived(document), load_findings(document)
    if derived.empty and findings.empty:
        return "<p>No figure derived from several cases.</p>"
    parts = []
    for (suite, subject), rows in derived.groupby(["suite", "subject"], sort=False):
        shown = rows[~rows["tag"].str.contains("/ledger/bucket|/projection/", regex=True)]
        parts.append(f"<h3>{html.escape(str(suite))} {html.escape(str(subject))}</h3>" +
                     table(["figure", "value", "unit", "note"],
                           [[r["name"], r["value"], r["unit"], r["note"]]
                            for _, r in shown.iterrows()]))
        said = findings[(findings["suite"] == suite) & (findings["subject"] == subject)]
        if not said.empty:
            parts.append("<ul>" + "".join(f"<li>{html.escape(f)}</li>"
                                          for f in said["finding"]) + "</ul>")
    return "".join(parts)


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
            table(["suite", "case", "series", "first", "this", "change", "verdict"], rows))


def page(documents, parity=None):
    """The HTML text of the page for [(path, document), ...], and parity.py's rows (a
    DataFrame from read_parity) where given."""
    sections = []
    for path, document in documents:
        figures = figures_for(document)
        verdict = verdict_line(document)
        sections.append(
            f"<h2>{html.escape(os.path.basename(path))}</h2>" +
            (f'<p class="verdict">{html.escape(verdict)}</p>' if verdict else "") +
            metadata_html(path, document) +
            "<h2>Summary</h2>" + summary_html(document) +
            "<h2>Figures</h2>" + "".join(figure_html(p) for p in figures) +
            "<h2>Derived figures and diagnosis</h2>" + derived_html(document))
    if parity is not None:
        sections.append("<h2>Parity with the library's model</h2>" +
                        figure_html(parity_figure(parity)))
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
    parser.add_argument("--parity", metavar="CSV",
                        help="tests/reference/parity.py's --csv output, drawn on the page")


def run(args):
    documents = [(path, read_results(path)) for path in args.results]
    if os.path.isdir(args.output):
        raise BadInput(f"-o: '{args.output}' is a folder")
    text = page(documents, read_parity(args.parity) if args.parity else None)
    temporary = args.output + ".tmp"
    with open(temporary, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temporary, args.output)
    print(args.output)
    return 0
