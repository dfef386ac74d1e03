"""One step, three figures: eager PyTorch (Python launches; `splitstep-analysis eager`),
splitstep's step (C++ launches) and its graphed step (one CUDA graph replay, no launches), beside
the GPU's kernel time in splitstep's step (--gpu-busy). Where the three agree the step is the
GPU's; where eager PyTorch or splitstep's step is longer than the graphed one, the difference is
the host's launches (docs/step.md, "Three figures of one step").
"""
from typing import NamedTuple, Optional

from .eager_results import is_eager, phase_seconds
from .schema import BadInput, read_json


class Launches(NamedTuple):
    case: str                   # splitstep's step case, e.g. "vit-b16 bf16 single"
    eager_file: str
    eager_s: float              # eager PyTorch's step, the median over ranks of rank medians
    splitstep_s: float          # splitstep's step, the median across ranks
    graphed_s: Optional[float]  # its graphed step, None where it was not graphed
    graphed_why: str            # why not, where it was skipped ("" where graphed or not asked)
    kernel_s: Optional[float]   # kernel time per step in splitstep's step, None unmeasured


def read_eager(path):
    """An `eager --json` file, read as the results files are (bounded, checked JSON), and
    checked to be one."""
    def refused(reason):
        return BadInput(f"--eager: {reason}")

    document = read_json(path, refused)
    if not is_eager(document) or not isinstance(document.get("ranks"), list) or \
            not document["ranks"]:
        raise BadInput(f"--eager: '{path}' is not a file of splitstep-analysis eager --json")
    return document


def _modes(eager):
    """The splitstep modes the eager run stands for, with the rank count each needs."""
    world = eager.get("world_size", 1)
    if eager.get("no_sync"):
        return {("none", world)}
    if eager.get("ddp"):
        return {("overlap", world)}
    return {("single", None), ("none", 1)}


def _median(case):
    median = case.get("across_ranks", {}).get("median")
    return median if isinstance(median, (int, float)) else None


def _pairs(case, eager):
    fields = case["fields"]
    if (fields.get("model"), fields.get("precision"), fields.get("parameters")) != \
            (eager.get("model"), eager.get("precision"), eager.get("parameters")):
        return False
    return any(mode == fields.get("mode") and world in (None, fields.get("world_size"))
               for mode, world in _modes(eager))


def launches(document, path, eager):
    """The Launches of splitstep's step case that the eager run `eager` (from `path`) stands
    for, or None where `document` holds none: the same model, precision, parameter count, and
    the mode it pairs with (alone: single, or none on one rank; under DDP: overlap)."""
    by_key = {(c["case"], c["series"]): c for c in document["cases"]}
    for case in document["cases"]:
        if case["suite"] != "step" or case["series"] != "step" or case.get("skipped") or \
                case["fields"].get("launch") == "graph" or not _pairs(case, eager):
            continue
        graphed = by_key.get((f"{case['case']} graphed", "step"))
        busy = by_key.get((case["case"], "gpu busy step"))
        return Launches(
            case=case["case"], eager_file=path, eager_s=phase_seconds(eager, "step"),
            splitstep_s=_median(case),
            graphed_s=_median(graphed) if graphed and not graphed.get("skipped") else None,
            graphed_why=(graphed.get("notes") or ["skipped"])[0].removeprefix("skipped: ")
            if graphed and graphed.get("skipped") else "",
            kernel_s=_median(busy) if busy and not busy.get("skipped") else None)
    return None


def paired(documents, eagers):
    """{results path: [Launches, ...]} for [(path, document)] and [(path, eager document)].
    Every eager file must pair with a step case of one of the results files."""
    rows = {path: [] for path, _ in documents}
    for eager_path, eager in eagers:
        found = [(path, row) for path, document in documents
                 if (row := launches(document, eager_path, eager)) is not None]
        if not found:
            raise BadInput(f"--eager: '{eager_path}' ({eager.get('model')} "
                           f"{eager.get('precision')}, {eager.get('parameters')} parameters) "
                           f"pairs with no step case of the results files")
        for path, row in found:
            rows[path].append(row)
    return rows
