"""Reading splitstep's results files (docs/results-schema.md), schema v1 and v2, into one shape.

`read_results` checks a file's structure and returns its document in the v2 shape whatever the
file's revision: every case has a `family` and typed `fields`, and `metadata.catalogue` names
the suites, collectives, case fields (with their types) and rate keys. A v1 file's catalogue is
derived from the cases it holds, and its string `params` are decoded here, the one place where
text from a results file is turned into numbers.

The standard library only: `time-to-answer` and the command's help run on a bare python3.
"""
import gzip
import io
import json
import math
import os
import stat
import zlib

from .figure_keys import keyed

SCHEMA_V1 = "splitstep.results/1"
SCHEMA_V2 = "splitstep.results/2"
SCHEMAS = (SCHEMA_V1, SCHEMA_V2)
FIELD_TYPES = ("string", "integer", "number", "integer list", "boolean")
# How placement reads in tables and legends; v1 files wrote these words as the value.
PLACEMENT_WORDS = {"out": "out of place", "in": "in place"}

# v1 wrote every param as a string; these are the ones that are not strings (the v2 catalogue
# gives them these types).
V1_FIELD_TYPES = {
    **{name: "integer" for name in (
        "size", "bytes", "count", "group_index", "m", "n", "k", "batch", "world_size",
        "parameters", "buckets", "gradient_bytes", "delay_rank", "bucket", "bucket_bytes")},
    "flop_per_step": "number", "delay": "number",
    "bucket_sizes": "integer list", "group": "integer list"}
V1_PLACEMENTS = {words: value for value, words in PLACEMENT_WORDS.items()}
# v1's earliest collectives: `in_place` instead of `placement`, and no `size` (it was `bytes`).
V1_EARLY_COLLECTIVES = ("allreduce", "reduce_scatter", "allgather", "broadcast")

# What a file may be before it is used (docs/analysis.md#files-it-refuses). The largest
# committed results file is 6 MB (a one-rank allreduce sweep: every rank's samples of every
# case); 64 MiB, ten times that, reads and checks in a few seconds and under 1 GB whatever the
# JSON holds. A file grows with the rank count, so a run of many ranks can raise the bound.
MAX_MIB_VARIABLE = "SPLITSTEP_ANALYSIS_MAX_MIB"
DEFAULT_MAX_MIB = 64
# splitstep nests 7 deep; Python's own parser gives up near 1000 with a RecursionError.
MAX_DEPTH = 64
# Seconds, bytes, counts and rates lie far inside these magnitudes; within them, a product or
# quotient of any two stays finite (5e-324 or 1e308 would overflow a rate or an axis).
SMALLEST, LARGEST = 1e-100, 1e100


class BadInput(ValueError):
    """Input a command cannot use; the message is one line that names it (exit status 2)."""


class ResultsError(BadInput):
    """A file that is not a readable splitstep results document; the message names the file and
    what is wrong, in one line."""


def max_bytes(error=BadInput):
    """The largest file read: DEFAULT_MAX_MIB MiB, or $SPLITSTEP_ANALYSIS_MAX_MIB."""
    text = os.environ.get(MAX_MIB_VARIABLE, "")
    if not text:
        return DEFAULT_MAX_MIB << 20
    try:
        mib = int(text)
    except ValueError:
        mib = 0
    if mib <= 0:
        raise error(f"{MAX_MIB_VARIABLE}={_shown(text)}: not a positive number of MiB")
    return mib << 20


def _shown(value, width=40):
    """`value` as JSON (a string quoted, control bytes escaped), cut to about `width`
    characters: a refusal quotes what it refuses in one short line."""
    text = json.dumps(value)
    if len(text) <= width:
        return text
    return f"an integer of {len(text)} digits" if isinstance(value, int) else \
        text[:width - 3] + "..."


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def read_bytes(path, error=BadInput):
    """The bytes of the regular file `path`, decompressed when it is gzip (the project commits
    traces as .json.gz), at most max_bytes() of either. Raises `error` naming the file."""
    limit = max_bytes(error)
    try:
        # O_NONBLOCK: a FIFO opens at once instead of waiting for a writer, and is refused.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            status = os.fstat(fd)
            if not stat.S_ISREG(status.st_mode):
                kind = next((name for test, name in _KINDS if test(status.st_mode)),
                            "not a regular file")
                raise error(f"{path}: cannot read: {kind}, not a file")
            too_large = (f"{path}: larger than {limit >> 20} MiB ({MAX_MIB_VARIABLE} raises "
                         f"the bound)")
            if status.st_size > limit:
                raise error(too_large)
            # Reading one byte past the bound refuses a file that grew since, holding no more.
            with os.fdopen(fd, "rb", closefd=False) as f:
                raw = f.read(limit + 1)
            if len(raw) > limit:
                raise error(too_large)
        finally:
            os.close(fd)
        if raw[:2] == b"\x1f\x8b":
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as z:
                raw = z.read(limit + 1)
            if len(raw) > limit:
                raise error(f"{path}: decompresses to more than {limit >> 20} MiB "
                            f"({MAX_MIB_VARIABLE} raises the bound)")
        return raw
    except (gzip.BadGzipFile, EOFError, zlib.error) as failure:
        raise error(f"{path}: not gzip: {failure}") from None
    except OSError as failure:
        raise error(f"{path}: cannot read: {failure.strerror or failure}") from None


def _check_values(value, fail):
    """Calls `fail` with the first thing in the JSON `value` that no splitstep file holds: a
    nesting deeper than MAX_DEPTH, a number outside SMALLEST..LARGEST (other than 0), a string
    that is not Unicode text (a lone surrogate such as \\ud800 cannot be printed)."""
    def check_text(text):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            fail(f"the string {_shown(text)} is not Unicode text (a lone surrogate)")

    # A stack, not recursion: the depth is what is being checked.
    stack = [([value], 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            fail(f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            for key in item:
                check_text(key)
            item = item.values()
        for child in item:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
            elif isinstance(child, str):
                check_text(child)
            elif isinstance(child, (int, float)) and not isinstance(child, bool):
                size = abs(child)
                if not (size <= LARGEST and (size >= SMALLEST or size == 0)):
                    fail(f"{_shown(child)} is out of range: a number is 0 or of magnitude "
                         f"{SMALLEST:g} to {LARGEST:g}")


def read_json(path, error=BadInput):
    """The JSON value in `path` (read_bytes), with its nesting, numbers and strings checked
    (_check_values). Raises `error` naming the file."""
    raw = read_bytes(path, error)
    try:
        value = json.loads(raw)
    except RecursionError:
        raise error(f"{path}: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as failure:  # JSON and UTF-8 errors
        raise error(f"{path}: not JSON: {failure}") from None

    def fail(reason):
        raise error(f"{path}: {reason}")

    _check_values(value, fail)
    return value


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_integer(value):
    return isinstance(value, int) and not isinstance(value, bool)


_TYPE_CHECKS = {
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": is_number,
    "integer list": lambda v: isinstance(v, list) and all(_is_integer(x) for x in v),
    "boolean": lambda v: isinstance(v, bool),
}


def v1_family(suite):
    """A v1 suite's family, by its name: matmul, membw, step, else a collective."""
    return suite if suite in ("matmul", "membw", "step") else "collective"


def _v1_value(name, text, fail):
    kind = V1_FIELD_TYPES.get(name, "string")
    try:
        if kind == "integer":
            return int(text)
        if kind == "number":
            value = float(text)
            if not math.isfinite(value):
                raise ValueError
            return value
        if kind == "integer list":
            return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        fail(f"param {name} {text!r} is not {'an' if kind.startswith('integer') else 'a'} "
             f"{kind}")
    if name == "placement":
        return V1_PLACEMENTS.get(text, text)
    return text


def _v1_fields(case, fail):
    """A v1 case's params as typed fields, under the names of schema v2."""
    params = case.get("params", {})
    if not all(isinstance(v, str) for v in params.values()):
        fail("a param is not a string (schema v1 writes every param as a string)")
    params = dict(params)
    if "in_place" in params and "placement" not in params:
        params["placement"] = "in place" if params.pop("in_place") == "true" else "out of place"
    family = v1_family(case["suite"])
    if case["suite"] in V1_EARLY_COLLECTIVES and "bytes" in params and "size" not in params:
        params["size"] = params["bytes"]
    fields = {}
    if family == "collective":
        fields["collective"] = case["suite"]
    fields.update({name: _v1_value(name, text, fail) for name, text in params.items()})
    return family, fields


def _v1_catalogue(cases):
    """What a v2 file's catalogue says, from the cases of a v1 file: suites in run order,
    collectives those of the collective family, per family the fields and rates present."""
    suites, families = {}, {}
    for case in cases:
        suites.setdefault(case["suite"], case["family"])
        entry = families.setdefault(case["family"], {"fields": {}, "rates": {}})
        for name in case["fields"]:
            entry["fields"].setdefault(name, {"name": name,
                                              "type": V1_FIELD_TYPES.get(name, "string")})
        for name in case.get("rates", {}):
            entry["rates"].setdefault(name, {"name": name})
    return {"suites": [{"name": s, "family": f} for s, f in suites.items()],
            "collectives": [s for s, f in suites.items() if f == "collective"],
            "families": {family: {"fields": list(entry["fields"].values()),
                                  "rates": list(entry["rates"].values())}
                         for family, entry in families.items()}}


def _check_catalogue(catalogue, fail):
    if not isinstance(catalogue, dict):
        fail("metadata.catalogue is missing or not an object (schema v2 has one)")
    suites, collectives = catalogue.get("suites"), catalogue.get("collectives")
    families = catalogue.get("families")
    if not isinstance(suites, list) or not all(
            isinstance(s, dict) and isinstance(s.get("name"), str) and
            isinstance(s.get("family"), str) for s in suites):
        fail("metadata.catalogue.suites is not an array of {name, family}")
    if not isinstance(collectives, list) or not all(isinstance(c, str) for c in collectives):
        fail("metadata.catalogue.collectives is not an array of names")
    if not isinstance(families, dict):
        fail("metadata.catalogue.families is not an object")
    # Files written before the catalogue carried the collectives' facts have none.
    facts = catalogue.get("collective_facts", {})
    if not isinstance(facts, dict) or not all(
            isinstance(f, dict) and (f.get("root") is None or _is_integer(f["root"])) and
            isinstance(f.get("reduction"), str) and isinstance(f.get("nccl_tests_binary"), str)
            and isinstance(f.get("verdicts"), list) and
            all(isinstance(v, str) for v in f["verdicts"]) for f in facts.values()):
        fail("metadata.catalogue.collective_facts is not an object of {root, reduction, "
             "nccl_tests_binary, verdicts} by collective")
    for family, entry in families.items():
        where = f"metadata.catalogue.families.{family}"
        if not isinstance(entry, dict) or not all(
                isinstance(entry.get(key), list) for key in ("fields", "rates")):
            fail(f"{where} has no fields and rates arrays")
        for field in entry["fields"]:
            if not isinstance(field, dict) or not isinstance(field.get("name"), str):
                fail(f"{where}.fields has an entry without a name")
            if field.get("type") not in FIELD_TYPES:
                fail(f"{where}.fields: {field['name']} has type {field.get('type')!r}, not one of "
                     f"{', '.join(FIELD_TYPES)}")
        if not all(isinstance(rate, dict) and isinstance(rate.get("name"), str)
                   for rate in entry["rates"]):
            fail(f"{where}.rates has an entry without a name")


def _v2_fields(case, catalogue, fail):
    family, fields = case.get("family"), case.get("fields")
    entry = catalogue["families"].get(family) if isinstance(family, str) else None
    if entry is None:
        fail(f"family {family!r} is not in metadata.catalogue.families")
    if not isinstance(fields, dict):
        fail("fields is missing or not an object")
    types = {field["name"]: field["type"] for field in entry["fields"]}
    for name, value in fields.items():
        if name not in types:
            fail(f"field {name} is not in the catalogue's fields of family {family}")
        if not _TYPE_CHECKS[types[name]](value):
            fail(f"field {name} is {json.dumps(value)}, not {types[name]!r}")
    return family, dict(fields)


def normalise(document, path):
    """The document in the v2 shape (a copy; the argument is left as it was), after checking
    the structure the loaders rely on. Raises ResultsError naming `path` and the first problem."""
    def fail(reason):
        raise ResultsError(f"{path}: {reason}")

    if not isinstance(document, dict):
        fail("not a JSON object")
    schema = document.get("schema")
    if schema not in SCHEMAS:
        fail(f"not a splitstep results file (schema: {schema!r}; this reads "
             f"{' and '.join(SCHEMAS)})")
    for key, kind in (("metadata", dict), ("cases", list)):
        if not isinstance(document.get(key), kind):
            fail(f"'{key}' is missing or not a JSON {'object' if kind is dict else 'array'}")
    if schema == SCHEMA_V2:
        _check_catalogue(document["metadata"].get("catalogue"), fail)
    cases, seen = [], set()
    for index, case in enumerate(document["cases"]):
        where = f"cases[{index}]"

        def fail_case(reason, where=where):
            fail(f"{where}: {reason}")

        if not isinstance(case, dict):
            fail_case("not an object")
        for key in ("suite", "case", "series"):
            if not isinstance(case.get(key), str):
                fail_case(f"{key} is missing or not a string")
        key = (case["suite"], case["case"], case["series"])
        if key in seen:
            fail_case(f"case {' / '.join(key)} appears twice")
        seen.add(key)
        if not isinstance(case.get("skipped", False), bool):
            fail_case("skipped is not true or false")
        if not all(isinstance(case.get(k, {}), dict) for k in ("params", "rates")):
            fail_case("params or rates is not an object")
        if not isinstance(case.get("ranks", []), list):
            fail_case("ranks is not an array")
        if not case.get("skipped", False):
            across = case.get("across_ranks")
            if not isinstance(across, dict) or not is_number(across.get("median")):
                fail_case("across_ranks.median is missing or not a number")
            if not all(is_number(across.get(k, 0)) for k in ("min", "max")):
                fail_case("across_ranks.min or max is not a number")
            if not all(is_number(rate) for rate in case.get("rates", {}).values()):
                fail_case("a rate is not a number")
        for rank_index, rank in enumerate(case.get("ranks", [])):
            at = f"ranks[{rank_index}]"
            if not isinstance(rank, dict) or not _is_integer(rank.get("rank")):
                fail_case(f"{at}.rank is missing or not an integer")
            values = rank.get("values", [])
            if not isinstance(values, list) or not all(is_number(v) for v in values):
                fail_case(f"{at}.values is not an array of numbers")
        if schema == SCHEMA_V1:
            family, fields = _v1_fields(case, fail_case)
        else:
            family, fields = _v2_fields(case, document["metadata"]["catalogue"], fail_case)
        # Rates and axes divide by a case's times; only a step's timings (packing where
        # nothing is packed, a bucket done before backward ends) can be 0.
        if family != "step" and not case.get("skipped", False) and not all(
                case["across_ranks"].get(k, 1) > 0 for k in ("median", "min", "max")):
            fail_case("across_ranks.median, min or max is not positive (a measured "
                      f"{family} case takes time)")
        cases.append({**case, "family": family, "fields": fields})
    derived = document.get("derived", [])
    if not isinstance(derived, list):
        fail("'derived' is not an array")
    for index, entry in enumerate(derived):
        figures = entry.get("figures") if isinstance(entry, dict) else None
        if not isinstance(figures, list) or not all(
                isinstance(f, dict) and isinstance(f.get("tag"), str) and is_number(f.get("value"))
                for f in figures):
            fail(f"derived[{index}].figures is not an array of figures with a tag and a value")
    metadata = dict(document["metadata"])
    if schema == SCHEMA_V1:
        metadata["catalogue"] = _v1_catalogue(cases)
    return {**document, "metadata": metadata, "cases": cases, "derived": keyed(derived, cases)}


def read_results(path):
    """The document of a results file (schema v1 or v2) in the v2 shape, after checking the
    structure the loaders rely on.

    Raises ResultsError (a ValueError) naming the file and the first problem found."""
    return normalise(read_json(path, ResultsError), path)


def as_document(source):
    """(document, path) of a path, or of a document already read (checked again: a document
    built in memory gets the same checks as a file)."""
    if isinstance(source, dict):
        return normalise(source, "<document>"), "<document>"
    return read_results(source), str(source)


def catalogue(document):
    """The catalogue of a document from read_results: suites, collectives (their facts:
    collective_facts.py), families."""
    return document["metadata"]["catalogue"]


def field_types(document):
    """{field: type} over every family of the document, in catalogue order (the first family
    to name a field gives its type)."""
    types = {}
    for entry in catalogue(document)["families"].values():
        for field in entry["fields"]:
            types.setdefault(field["name"], field["type"])
    return types

