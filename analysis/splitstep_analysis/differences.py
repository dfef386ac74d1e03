"""What differs between the runs of a comparison, and the comparisons that make no sense.

Before cases are compared, `run_differences` lists what the two sides ran with that is not the
same: the plan (every option's canonical text), the schema revision, the versions, the GPUs,
the rank count and the environment splitstep recorded. `refusal` says why a comparison cannot
be made at all (no suite in common, or times that depend on the rank count measured on
different rank counts), and `select` keeps the cases a comparison is asked for.
"""
import re

from .plans import option_text

# The metadata entries that name what a run was built and run with.
VERSIONS = ("splitstep_version", "git_revision", "libtorch_version", "cuda_runtime_version",
            "cuda_driver_version", "nccl_version", "mpi_library")
# Variables the launcher sets afresh for every job (ids, addresses, the command line): they
# differ between any two runs and say nothing of how the run was configured.
LAUNCHER_PREFIXES = ("OMPI_", "PMIX_", "PMI_", "SLURM_")
# Families whose times depend on how many ranks take part: a collective's, the step's.
RANK_BOUND = ("collective", "step")
# A text plan's switches spelt true/false, as a typed plan's read (option_text): on/off.
LEGACY_SWITCHES = {"true": "on", "false": "off"}


def _values(documents, read):
    """The distinct values `read(document)` gives over a side's runs, in run order, as text."""
    return list(dict.fromkeys("" if (v := read(d)) is None else str(v) for d in documents))


def _gpus(document):
    names = sorted({r.get("device_name", "") for r in document.get("ranks", [])
                    if isinstance(r, dict)} - {""})
    return ", ".join(names) or "none"


def _device_kinds(document):
    """"GPU", "CPU" or both, of the ranks' devices ("cuda:0", "cpu")."""
    kinds = {"CPU" if str(r.get("device", "")).startswith("cpu") else "GPU"
             for r in document.get("ranks", []) if isinstance(r, dict) and r.get("device")}
    return " and ".join(sorted(kinds)) or "unknown"


def device_warnings(baseline, candidate):
    """Warnings, one line each, where the sides ran on different kinds of device (CPU ranks
    against GPUs) or different GPU models: a verdict then says as much about the machines as
    about the change. Each side is a list of documents."""
    warnings = []
    kinds = [" / ".join(sorted({_device_kinds(d) for d in side})) for side in (baseline, candidate)]
    if kinds[0] != kinds[1]:
        warnings.append(f"warning: the baseline ran on {kinds[0]} ranks, the candidate on "
                        f"{kinds[1]} ranks: their times measure different machines")
    elif "GPU" in kinds[0]:
        gpus = [" / ".join(sorted({_gpus(d) for d in side})) for side in (baseline, candidate)]
        if gpus[0] != gpus[1]:
            warnings.append(f"warning: the GPUs differ ({gpus[0]} | {gpus[1]}): a difference is "
                            f"the hardware's as much as the change's")
    return warnings


def _keys(documents, section):
    keys = {}
    for document in documents:
        entries = section(document)
        keys.update(dict.fromkeys(entries if isinstance(entries, dict) else ()))
    return list(keys)


def run_differences(baseline, candidate):
    """[(what, name, baseline value, candidate value)] for everything recorded about the runs
    that differs between the sides: what is "plan", "schema", "version", "GPUs", "ranks" or
    "environment". Each side is a list of documents (from read_results); a side whose runs
    disagree shows their values joined by " / ". An entry one side lacks shows as "(none)"."""
    def plan(d):
        # As the options take them, so that a typed plan and one written as text before read
        # alike (text plans spelt some switches true/false).
        entries = d.get("plan") if isinstance(d.get("plan"), dict) else {}
        return {k: LEGACY_SWITCHES.get(v, v) if isinstance(v, str) else option_text(v)
                for k, v in entries.items()}

    def environment(d):
        env = d["metadata"].get("environment")
        return {k: v for k, v in env.items() if not k.startswith(LAUNCHER_PREFIXES)} \
            if isinstance(env, dict) else {}

    checks = [("schema", "schema", lambda d: d.get("schema")),
              ("ranks", "world size", lambda d: d["metadata"].get("world_size")),
              ("GPUs", "devices", _gpus)]
    checks += [("version", key, lambda d, key=key: d["metadata"].get(key)) for key in VERSIONS]
    for what, section in (("plan", plan), ("environment", environment)):
        checks += [(what, key, lambda d, key=key, section=section: section(d).get(key, "(none)"))
                   for key in _keys(baseline + candidate, section)]
    differences = []
    for what, name, read in checks:
        before, after = _values(baseline, read), _values(candidate, read)
        if before != after:
            differences.append((what, name, " / ".join(before), " / ".join(after)))
    return differences


def refusal(baseline, candidate, allow_ranks=False):
    """Why the sides cannot be compared, in one line, or None. Each side is a list of
    (path, document)."""
    suites = [{case["suite"] for _, d in side for case in d["cases"]}
              for side in (baseline, candidate)]
    if not suites[0] & suites[1]:
        return (f"{baseline[0][0]} and {candidate[0][0]} share no suite (baseline: "
                f"{', '.join(sorted(suites[0])) or 'none'}; candidate: "
                f"{', '.join(sorted(suites[1])) or 'none'}): nothing to compare")
    sizes = {path: d["metadata"].get("world_size") for side in (baseline, candidate)
             for path, d in side}
    if allow_ranks or len(set(sizes.values())) < 2:
        return None
    bound = sorted({case["suite"] for side in (baseline, candidate) for _, d in side
                    for case in d["cases"] if case["family"] in RANK_BOUND
                    and case["suite"] in suites[0] & suites[1]})
    if not bound:
        return None
    ran = ", ".join(f"{path} on {n}" for path, n in sizes.items())
    return (f"the runs have different rank counts ({ran}), and the times of {', '.join(bound)} "
            f"depend on it: not comparable (--allow-ranks compares them anyway, or --suite "
            f"picks suites that do not)")


def parse_pattern(text):
    """A --case pattern: a regular expression (a plain word is a substring)."""
    try:
        return re.compile(text)
    except re.error as error:
        raise ValueError(f"'{text}' is not a regular expression: {error}") from None


def parse_suites(text):
    """'matmul,allreduce' -> ['matmul', 'allreduce']."""
    suites = [s.strip() for s in text.split(",")]
    if not all(suites):
        raise ValueError(f"'{text}' has an empty suite name")
    return suites


def select(document, suites=None, pattern=None):
    """A copy of `document` with only the cases of `suites` (names; None: all) whose case name
    `pattern` (a compiled regular expression; None: all) finds."""
    cases = [case for case in document["cases"]
             if (suites is None or case["suite"] in suites)
             and (pattern is None or pattern.search(case["case"]))]
    return {**document, "cases": cases}
