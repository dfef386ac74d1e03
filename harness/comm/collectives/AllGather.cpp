// allgather: every rank ends with every rank's block, in rank order.
#include "comm/Collective.hpp"

namespace splitstep {
namespace {

// Ring: n - 1 steps, each passing on one block (Thakur, Rabenseifner & Gropp 2005).
const AlgorithmCost kAlgorithms[] = {
    {"ring", [](double n) { return n - 1; }, [](double n) { return (n - 1) / n; }},
};

}  // namespace

extern const CollectiveDescriptor kAllGather = {
    .name = "allgather",
    .help = "every rank's block, concatenated in rank order on every rank",
    .in_default_run = false,
    .reduction = Reduction::None,
    .root = std::nullopt,
    .bus_factor = [](double n) { return (n - 1) / n; },
    .algorithms = kAlgorithms,
    .layout = gatherLayout,
    .expect = [](const CollectiveLayout& l, int, int ranks) -> kernels::ExpectSpec {
      return {.sum = false, .world = ranks, .block = l.send};
    },
    .result_at_root_only = false,
    .nccl =
        [](const NcclCall& c) {
          return ncclAllGather(c.send, c.recv, c.count, c.type, c.comm, c.stream);
        },
    .mpi =
        [](const MpiCall& c) {
          const bool in_place =
              c.send == static_cast<const char*>(c.recv) + static_cast<std::size_t>(c.rank) *
                                                               static_cast<std::size_t>(c.count) *
                                                               c.element_bytes;
          return MPI_Iallgather(in_place ? MPI_IN_PLACE : c.send, c.count, c.type, c.recv, c.count,
                                c.type, c.comm, &c.requests->emplace_back());
        },
    .in_place_refusal = "",
    .mpi_in_place_refusal = "",
    .nccl_tests_binary = "all_gather_perf",
    .verdicts = {},
};

}  // namespace splitstep
