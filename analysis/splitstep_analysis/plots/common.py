"""What every figure family shares: the Plot it returns, names and sizes as labels, when a bar
chart takes a log axis."""
import math
import re
from typing import NamedTuple

import pandas as pd


# Each figure's tight layout is set as its layout engine, which runs when the figure is drawn,
# rather than computed at once: the layout measures every label's text, half the cost of a
# figure, and a figure that is only built and counted (not_drawn, the committed-results test)
# is never drawn.



class Plot(NamedTuple):
    """A figure, the name its file takes, and the (suite, case, series) of the cases it draws."""
    name: str
    figure: object
    drew: frozenset


def _keys(frame):
    """The (suite, case, series) of a frame's rows."""
    if frame.empty:
        return frozenset()
    return frozenset(zip(frame["suite"], frame["case"], frame["series"]))


def _slug(text):
    return re.sub(r"[^A-Za-z0-9.]+", "-", str(text)).strip("-").lower()


def size_label(size):
    """8 -> '8 B', 65536 -> '64 KiB', as splitstep names sizes."""
    size = int(size)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


# A bar chart whose values span this factor or more gets a log axis: on a linear one the small
# bars (a 55 GB/s host copy beside a 4,000 GB/s HBM copy) are too short to see.
LOG_SPAN = 20.0


def spans_orders(values):
    """True where the positive finite `values` span LOG_SPAN or more (max / min)."""
    values = [float(v) for v in values if not pd.isna(v) and float(v) > 0 and
              math.isfinite(float(v))]
    return len(values) > 1 and max(values) / min(values) >= LOG_SPAN
