// reduce: rank 0 ends with the element-wise sum of all ranks' buffers.
#include "comm/Collective.hpp"
#include "comm/RootedAlgorithms.hpp"

namespace splitstep {
namespace {

// nccl-tests' default root (-r 0).
constexpr int kRoot = 0;

}  // namespace

extern const CollectiveDescriptor kReduce = {
    .name = "reduce",
    .help = "element-wise sum over ranks, result on rank 0",
    .in_default_run = false,
    .reduction = Reduction::Sum,
    .root = kRoot,
    .bus_factor = [](double) { return 1.0; },
    .algorithms = kRootedAlgorithms,
    .layout = wholeBufferLayout,
    .expect = [](const CollectiveLayout&, int, int ranks) -> kernels::ExpectSpec {
      return {.sum = true, .world = ranks};
    },
    .result_at_root_only = true,
    .nccl =
        [](const NcclCall& c) {
          return ncclReduce(c.send, c.recv, c.count, c.type, ncclSum, kRoot, c.comm, c.stream);
        },
    .mpi =
        [](const MpiCall& c) {
          // MPI names the root's in-place input MPI_IN_PLACE; elsewhere the receive buffer is
          // not used.
          const bool in_place = c.rank == kRoot && c.send == c.recv;
          return MPI_Ireduce(in_place ? MPI_IN_PLACE : c.send, c.recv, c.count, c.type, MPI_SUM,
                             kRoot, c.comm, &c.requests->emplace_back());
        },
    .in_place_refusal = "",
    .mpi_in_place_refusal = "",
    .nccl_tests_binary = "reduce_perf",
    .verdicts = {},
};

}  // namespace splitstep
