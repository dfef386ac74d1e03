"""Typed keys for the derived figures of files written before splitstep wrote them.

splitstep writes each derived figure's `key` (results-schema.md): what its tag spells, typed, so
that the package selects figures by key and takes no tag apart. A file written before had only
the tags; `keyed` gives its figures the keys splitstep would have written, read once from the
tags of that time here, for the figures the package selects: collective projections, step
projections, step times and the verdict's figures. A figure that has a key keeps it. Those files
named the case a verdict item judged only inside a figure's name, which is never taken apart:
the judged case is the one of the item's family whose rate is the measured figure's value, the
same number written twice; where none or several are, the key names no case.
"""
import math
import re

_COLLECTIVE = re.compile(r"collective/projection/([^/]+)/([^/]+)/([^/]+)/(out|in)/N=(\d+)/time")
_STEP_PROJECTION = re.compile(r"step/projection/N=(\d+)/(T_seq|T_ddp)")
_STEP_TIME = re.compile(r"step/time/([a-z]+)")
_VERDICT = re.compile(r"verdict/([a-z0-9-]+)/(measured|expected|ratio)")
# docs/metrics.md: T_seq is the sequential step's time, T_ddp the overlapped one's.
_MODES = {"T_seq": "sequential", "T_ddp": "overlap"}
# The verdict's items by the family of the cases they judge, and the GEMM's dtype
# (docs/verdict.md); "matmul-bf16" is the GEMM item's first name.
_ITEM_FAMILIES = {"gemm-bf16": "matmul", "matmul-bf16": "matmul", "hbm-triad": "membw",
                  "host-device": "membw", "allreduce-busbw": "collective"}


def _verdict_key(match, judged):
    item, which = match.groups()
    key = {"figure": f"verdict/{which}", "item": item, "case": judged.get(item, "")}
    family = _ITEM_FAMILIES.get(item)
    if family:
        key["family"] = family
    if family == "matmul":
        key["dtype"] = "bf16"
    return key


def _key(tag, judged):
    if match := _COLLECTIVE.fullmatch(tag):
        collective, backend, dtype, placement, ranks = match.groups()
        return {"figure": "collective/projection/time", "collective": collective,
                "backend": backend, "dtype": dtype, "placement": placement, "ranks": int(ranks)}
    if match := _STEP_PROJECTION.fullmatch(tag):
        return {"figure": "step/projection", "ranks": int(match.group(1)),
                "mode": _MODES[match.group(2)]}
    if match := _STEP_TIME.fullmatch(tag):
        return {"figure": "step/time", "mode": match.group(1)}
    if match := _VERDICT.fullmatch(tag):
        return _verdict_key(match, judged)
    return {}


def _judged(figures, cases):
    """{item: the case it judged} of a verdict's measured figures: the one case of the item's
    family with a rate equal to the figure's value (to rounding in the last digit)."""
    judged = {}
    for figure in figures:
        match = _VERDICT.fullmatch(figure["tag"])
        if not match or match.group(2) != "measured":
            continue
        family = _ITEM_FAMILIES.get(match.group(1))
        found = {case["case"] for case in cases if case.get("family") == family and any(
            math.isclose(rate, figure["value"], rel_tol=1e-12)
            for rate in case.get("rates", {}).values())}
        if len(found) == 1:
            judged[match.group(1)] = found.pop()
    return judged


def keyed(derived, cases=()):
    """The derived results with every figure keyed: its own key, else the one its tag implies;
    `cases` (the file's, with their family) find what a verdict item judged."""
    out = []
    for entry in derived:
        figures = entry.get("figures", [])
        judged = _judged(figures, cases) if any("key" not in f for f in figures) else {}
        out.append({**entry, "figures": [
            figure if "key" in figure else {**figure, "key": _key(figure["tag"], judged)}
            for figure in figures]})
    return out
