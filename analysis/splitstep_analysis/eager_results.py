"""The JSON `splitstep-analysis eager --json` writes (docs/parity.md): what names it, the fields
that say which run it was, checked, and its phases' medians as splitstep reports its own.

The standard library only, as the results reader (schema.py).
"""
import statistics
from typing import Callable, Mapping, Sequence, Union

from .schema import BadInput

# What the JSON names itself (parity.py, the report).
TOOL = "splitstep-analysis eager"
# The names it is read under: files written before the command had its name say "step_twin".
TOOLS = (TOOL, "step_twin")
# What a run was, beside its phases' times: the fields that pair it with splitstep's cases.
RUN_FIELDS = ("model", "precision", "optimizer", "optimizer_impl", "input", "world_size", "ddp",
              "no_sync", "parameters", "shape")


def is_eager(value: object) -> bool:
    """Whether a JSON value names itself a file of the eager command."""
    return isinstance(value, dict) and value.get("tool") in TOOLS


def checked(document: dict, path: str,
            error: Callable[[str], Exception] = BadInput) -> dict:
    """`document` (an eager file's, read from `path`) after checking that it has every
    RUN_FIELDS entry and, on each rank, phases of times (a non-empty list of numbers each).
    Raises `error` with one line naming `path` and what is wrong."""
    try:
        for key in RUN_FIELDS:
            document[key]
        for rank in document["ranks"]:
            for values in rank["phases"].values():
                if not values or not all(isinstance(v, (int, float)) for v in values):
                    raise ValueError("a phase without times")
    except (KeyError, TypeError, ValueError) as e:
        raise error(f"{path}: not a result of splitstep-analysis eager "
                    f"({type(e).__name__}: {e})") from None
    return document


def phase_seconds(document: Mapping, phases: Union[str, Sequence[str]]) -> float:
    """The median over ranks of each rank's median of one phase, or of several phases'
    per-step sums (the phases of one step are samples of the same index), in seconds."""
    names = (phases,) if isinstance(phases, str) else tuple(phases)
    return statistics.median(
        statistics.median(sum(steps) for steps in zip(*(r["phases"][n] for n in names)))
        for r in document["ranks"])
