"""The names a results file's catalogue lists: the values a text field takes, in the order tables
and figures show them (`metadata.catalogue.families.*.fields[].values`), and a family's parts, the
series a whole case is made of (`parts`: a step's phases). splitstep writes them from its case
families (harness/cases/*Case.cpp); code here reads them from the file and names none itself.

A file written before the catalogue listed them is read with EARLIER, what the builds of that
time declared. It is a record of those builds, not a list to extend.

The standard library only, as schema.py.
"""
from .schema import catalogue

EARLIER = {
    "values": {"step": {"mode": ["none", "sequential", "overlap", "single"],
                        "quantity": ["ready", "launch delay", "comm", "finish after backward"]},
               "matmul": {"dtype": ["fp32", "tf32", "fp16", "bf16"]}},
    "parts": {"step": ["data", "forward", "loss", "backward", "sync", "optimizer"]}}

# Where the loaders keep the file's vocabulary on a frame (DataFrame.attrs), for code given only
# the frame.
FRAME_ATTRIBUTE = "vocabulary"


def vocabulary(document):
    """{"values": {family: {field: [names]}}, "parts": {family: [series]}} of a document from
    read_results."""
    families = catalogue(document)["families"]
    listed = any("parts" in entry or any("values" in f for f in entry["fields"])
                 for entry in families.values())
    if not listed:
        return EARLIER
    return {"values": {family: {f["name"]: list(f["values"]) for f in entry["fields"]
                                if f.get("values")}
                       for family, entry in families.items()},
            "parts": {family: list(entry.get("parts", [])) for family, entry in families.items()}}


def _of_frame(frame):
    return frame.attrs.get(FRAME_ATTRIBUTE, EARLIER)


def field_values(frame, family, field):
    """The names `field` of `family` takes, in their order, by the file `frame` was loaded from."""
    return _of_frame(frame)["values"].get(family, {}).get(field, [])


def parts(frame, family):
    """The series a whole case of `family` is made of, in their order (a step's phases)."""
    return _of_frame(frame)["parts"].get(family, [])


def in_order(names, family, field, frame):
    """`names` (a column's values) in the catalogue's order, any it does not list after them,
    sorted."""
    known = field_values(frame, family, field)
    present = set(names)
    return [n for n in known if n in present] + sorted(present - set(known))
