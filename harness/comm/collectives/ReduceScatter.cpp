// reduce_scatter: rank r ends with block r of the element-wise sum over ranks.
#include "comm/Collective.hpp"

namespace splitstep {
namespace {

// Ring: n - 1 steps, each passing on one block of partial sums (Thakur, Rabenseifner & Gropp
// 2005).
const AlgorithmCost kAlgorithms[] = {
    {"ring", [](double n) { return n - 1; }, [](double n) { return (n - 1) / n; }},
};

}  // namespace

extern const CollectiveDescriptor kReduceScatter = {
    .name = "reduce_scatter",
    .help = "element-wise sum over ranks, rank r keeping block r",
    .in_default_run = false,
    .reduction = Reduction::Sum,
    .root = std::nullopt,
    .bus_factor = [](double n) { return (n - 1) / n; },
    .algorithms = kAlgorithms,
    .layout = scatterLayout,
    .expect = [](const CollectiveLayout& l, int rank, int ranks) -> kernels::ExpectSpec {
      return {.sum = true, .world = ranks, .offset = static_cast<std::uint64_t>(rank) * l.recv};
    },
    .result_at_root_only = false,
    .nccl =
        [](const NcclCall& c) {
          return ncclReduceScatter(c.send, c.recv, c.count, c.type, ncclSum, c.comm, c.stream);
        },
    .mpi =
        [](const MpiCall& c) {
          return MPI_Ireduce_scatter_block(c.send, c.recv, c.count, c.type, MPI_SUM, c.comm,
                                           &c.requests->emplace_back());
        },
    // MPI leaves an in-place reduce-scatter's block at the front of the buffer, NCCL at the
    // rank's own offset: the two would not be the same operation.
    .in_place_refusal = "",
    .mpi_in_place_refusal = "MPI's in-place reduce-scatter has another buffer layout than NCCL's",
    .nccl_tests_binary = "reduce_scatter_perf",
    .verdicts = {},
};

}  // namespace splitstep
