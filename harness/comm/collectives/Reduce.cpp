// reduce: rank 0 ends with the element-wise sum of all ranks' buffers.
#include <cmath>

#include "comm/Collective.hpp"

namespace splitstep {
namespace {

// Ring: a pipelined chain towards the root, n - 1 hops long. Tree: two pipelined binary trees,
// each reducing half the data (Sanders, Speck & Traeff 2009).
const AlgorithmCost kAlgorithms[] = {
    {"ring", [](double n) { return n - 1; }, [](double) { return 1.0; }},
    {"tree", [](double n) { return std::ceil(std::log2(n)); }, [](double) { return 1.0; }},
};

}  // namespace

extern const CollectiveDescriptor kReduce = {
    .name = "reduce",
    .help = "element-wise sum over ranks, result on rank 0",
    .in_default_run = false,
    .reduction = true,
    .bus_factor = [](double) { return 1.0; },
    .algorithms = kAlgorithms,
    .layout = [](std::size_t count, std::size_t, std::size_t) -> CollectiveLayout {
      return {.count = count, .send = count, .recv = count, .call_count = count};
    },
    .expect = [](const CollectiveLayout&, int, int ranks) -> kernels::ExpectSpec {
      return {.sum = true, .world = ranks};
    },
    .result_at_root_only = true,
    .nccl =
        [](const NcclCall& c) {
          return ncclReduce(c.send, c.recv, c.count, c.type, ncclSum, 0, c.comm, c.stream);
        },
    .mpi =
        [](const MpiCall& c) {
          // MPI names the root's in-place input MPI_IN_PLACE; elsewhere the receive buffer is
          // not used.
          const bool in_place = c.rank == 0 && c.send == c.recv;
          return MPI_Ireduce(in_place ? MPI_IN_PLACE : c.send, c.recv, c.count, c.type, MPI_SUM, 0,
                             c.comm, &c.requests->emplace_back());
        },
    .in_place_refusal = "",
    .mpi_in_place_refusal = "",
};

}  // namespace splitstep
