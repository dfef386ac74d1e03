"""Each collective's facts as a results file gives them: its root, its reduction, its nccl-tests
binary and the judgements of its busbw beyond its own cases (`metadata.catalogue.
collective_facts`, written from each collective's descriptor, harness/comm/collectives/).

A file written before the catalogue carried them (schema v1 included) is read with EARLIER_FACTS,
what the builds of that time declared for their nine collectives. It is a record of those builds, not a list to
extend: a collective added since comes with its facts in every file that holds it.

The standard library only, as schema.py.
"""
from .schema import catalogue

# Node verdict: the busbw held to the reference figures (docs/verdict.md). Scaling: the busbw
# table by rank count of `splitstep-analysis scaling`.
NODE_BUSBW, SCALING_BUSBW = "node-busbw", "scaling-busbw"

EARLIER_FACTS = {
    name: {"root": root, "reduction": reduction, "nccl_tests_binary": binary,
           "verdicts": [NODE_BUSBW, SCALING_BUSBW] if name == "allreduce" else []}
    for name, root, reduction, binary in (
        ("allreduce", None, "sum", "all_reduce_perf"),
        ("reduce_scatter", None, "sum", "reduce_scatter_perf"),
        ("allgather", None, "none", "all_gather_perf"),
        ("broadcast", 0, "none", "broadcast_perf"),
        ("alltoall", None, "none", "alltoall_perf"),
        ("sendrecv", None, "none", "sendrecv_perf"),
        ("reduce", 0, "sum", "reduce_perf"),
        ("gather", 0, "none", "gather_perf"),
        ("scatter", 0, "none", "scatter_perf"))}


def collective_facts(document):
    """{collective: {"root", "reduction", "nccl_tests_binary", "verdicts"}} of every collective
    of the build that wrote a document from read_results."""
    return catalogue(document).get("collective_facts", EARLIER_FACTS)


def judged_by(document, verdict):
    """The collectives whose facts list `verdict` (NODE_BUSBW, SCALING_BUSBW), in the
    catalogue's order."""
    facts = collective_facts(document)
    return [name for name in catalogue(document)["collectives"]
            if verdict in facts.get(name, {}).get("verdicts", [])]


def binaries(document):
    """{nccl-tests binary: collective} of the document's collectives that have one."""
    return {fact["nccl_tests_binary"]: name for name, fact in collective_facts(document).items()
            if fact["nccl_tests_binary"]}
