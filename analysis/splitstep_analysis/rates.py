"""The rates a results file's cases carry, looked up by key: `metadata.catalogue.families.*.rates`
declares each one's key, name (the column of load_cases and the tables), unit and direction,
written from harness/cases/Rates.hpp. Code names a rate by its key; its name comes from the file.

A file written before the catalogue gave rates keys (schema v1 included) is read with
EARLIER_RATES, what the builds of that time wrote. It is a record of those builds, not a list to
extend: a rate added since comes with its key in every file that holds it.

The standard library only, as schema.py.
"""
from .schema import catalogue

ALGBW, BUSBW, MEMORY_BANDWIDTH, TFLOPS, SAMPLES_PER_SECOND = (
    "algbw", "busbw", "memory_bandwidth", "tflops", "samples_per_second")

EARLIER_RATES = {
    key: {"key": key, "name": name, "unit": unit, "better": "higher"}
    for key, name, unit in ((ALGBW, "algbw GB/s", "GB/s"), (BUSBW, "busbw GB/s", "GB/s"),
                            (MEMORY_BANDWIDTH, "GB/s", "GB/s"), (TFLOPS, "TFLOP/s", "TFLOP/s"),
                            (SAMPLES_PER_SECOND, "samples/s", "samples/s"))}

# Where load_cases keeps the rates of its file on the frame (DataFrame.attrs), so that code given
# only the frame finds a rate's column.
FRAME_ATTRIBUTE = "rates"


def rates(document):
    """{key: {"key", "name", "unit", "better"}} of every rate of the build that wrote a document
    from read_results."""
    declared = {rate["key"]: rate for entry in catalogue(document)["families"].values()
                for rate in entry["rates"] if "key" in rate}
    return declared or dict(EARLIER_RATES)


def rate_name(document, key):
    """The name (the column of load_cases) of rate `key` in a document from read_results."""
    return rates(document)[key]["name"]


def _of_frame(cases):
    # pandas drops attrs in a merge: callers read the column before merging (nccl_tests.compare).
    # A KeyError here is a frame not from load_cases.
    return cases.attrs[FRAME_ATTRIBUTE]


def rate_column(cases, key):
    """The column of rate `key` in a frame from load_cases (or one filtered from it)."""
    return _of_frame(cases)[key]["name"]


def rate_unit(cases, key):
    """The unit of rate `key` in a frame from load_cases (or one filtered from it)."""
    return _of_frame(cases)[key]["unit"]
