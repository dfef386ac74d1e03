// allreduce: every rank ends with the element-wise sum of all ranks' buffers.
#include <cmath>

#include "comm/Collective.hpp"

namespace splitstep {
namespace {

// Ring: reduce-scatter then allgather around the ring (Patarasuk & Yuan 2009). Tree: NCCL's
// two pipelined binary trees, each reducing and broadcasting half the data (Sanders, Speck &
// Traeff 2009).
const AlgorithmCost kAlgorithms[] = {
    {"ring", [](double n) { return 2 * (n - 1); }, [](double n) { return 2 * (n - 1) / n; }},
    {"tree", [](double n) { return 2 * std::ceil(std::log2(n)); }, [](double) { return 2.0; }},
};

}  // namespace

extern const CollectiveDescriptor kAllReduce = {
    .name = "allreduce",
    .help = "element-wise sum over ranks, result on every rank",
    .in_default_run = true,
    .reduction = true,
    .bus_factor = [](double n) { return 2 * (n - 1) / n; },
    .algorithms = kAlgorithms,
    .layout = [](std::size_t count, std::size_t, std::size_t) -> CollectiveLayout {
      return {.count = count, .send = count, .recv = count, .call_count = count};
    },
    .expect = [](const CollectiveLayout&, int, int ranks) -> kernels::ExpectSpec {
      return {.sum = true, .world = ranks};
    },
    .result_at_root_only = false,
    .nccl =
        [](const NcclCall& c) {
          return ncclAllReduce(c.send, c.recv, c.count, c.type, ncclSum, c.comm, c.stream);
        },
    .mpi =
        [](const MpiCall& c) {
          return MPI_Iallreduce(c.send == c.recv ? MPI_IN_PLACE : c.send, c.recv, c.count, c.type,
                                MPI_SUM, c.comm, &c.requests->emplace_back());
        },
    .in_place_refusal = "",
    .mpi_in_place_refusal = "",
};

}  // namespace splitstep
