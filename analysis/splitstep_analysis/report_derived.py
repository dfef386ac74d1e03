"""The report page's derived figures, each with its findings (the diagnosis)."""
import html

from .report_cells import folded, format_value, table

# A derived figure shown folded: the bucket ledger (one figure per bucket and mode; the figure
# draws it) and the projection's check (`splitstep-analysis projection` is its own page).
FOLDED_TAGS = ("/ledger/", "/projection/")


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
