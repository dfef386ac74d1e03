"""What the report page's tables are made of: numbers with their units, cells, tables, and
sections folded away."""
import html
import math

from .compare_text import format_time

# A table longer than this is folded in a <details> element, its first line saying what it holds.
FOLD_ROWS = 12


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
