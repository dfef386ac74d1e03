"""A results file's plan: every option of the run by its name (docs/results-schema.md).

splitstep writes each value typed (numbers, true and false, lists, names); files written before
the plan was typed hold canonical text, which these read too. The standard library only, as
schema.py.
"""
from typing import Mapping, Optional


def plan(document: Mapping) -> dict:
    """The run's plan: every option by its name, typed as the file writes it (numbers, true and
    false, lists, names; files written before the plan was typed hold canonical text), {} where
    the file has none."""
    value = document.get("plan")
    return value if isinstance(value, dict) else {}


def option_text(value) -> str:
    """A plan value as the option takes it on the command line: true/false as on/off, a list
    joined by commas, a whole number without a fraction (25.0 as 25, as splitstep printed the
    text plans), a name as written (a text plan's value as it is)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list):
        return ",".join(option_text(item) for item in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def plan_integer(options: Mapping, name: str) -> Optional[int]:
    """The integer option `name` holds in a plan (from `plan`), read as text from a file written
    before the plan was typed; None where the plan has no such option or it is no integer."""
    value = options.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    try:
        return int(value) if isinstance(value, str) else None
    except ValueError:
        return None
