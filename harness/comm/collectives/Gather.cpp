// gather: rank 0 ends with every rank's block, concatenated in rank order.
#include <cstddef>

#include "comm/Collective.hpp"
#include "comm/RootedAlgorithms.hpp"

namespace splitstep {
namespace {

// nccl-tests' default root (-r 0). The in-place calls below count on its block being the
// buffer's first.
constexpr int kRoot = 0;

}  // namespace

extern const CollectiveDescriptor kGather = {
    .name = "gather",
    .help = "every rank's block, concatenated in rank order on rank 0",
    .in_default_run = false,
    .reduction = Reduction::None,
    .root = kRoot,
    .bus_factor = [](double n) { return (n - 1) / n; },
    .algorithms = kRootedBlockAlgorithms,
    .layout = gatherLayout,
    .expect = [](const CollectiveLayout& l, int, int ranks) -> kernels::ExpectSpec {
      return {.sum = false, .world = ranks, .block = l.send};
    },
    .result_at_root_only = true,
    .nccl =
        [](const NcclCall& c) {
          // A send to the root from every rank and the root's receive from each, in a group, as
          // nccl-tests calls it and as NCCL's own ncclGather (2.28) expands it.
          const std::size_t block = c.count * c.element_bytes;
          ncclResult_t result = ncclGroupStart();
          if (result == ncclSuccess) {
            result = ncclSend(c.send, c.count, c.type, kRoot, c.comm, c.stream);
          }
          for (int peer = 0; c.rank == kRoot && peer < c.ranks && result == ncclSuccess; ++peer) {
            result = ncclRecv(static_cast<char*>(c.recv) + static_cast<std::size_t>(peer) * block,
                              c.count, c.type, peer, c.comm, c.stream);
          }
          // A group once opened is closed, whatever failed inside it.
          const ncclResult_t ended = ncclGroupEnd();
          return result != ncclSuccess ? result : ended;
        },
    .mpi =
        [](const MpiCall& c) {
          // In place, the root's block is already at its offset 0: MPI calls that MPI_IN_PLACE.
          const bool in_place = c.rank == kRoot && c.send == c.recv;
          return MPI_Igather(in_place ? MPI_IN_PLACE : c.send, c.count, c.type, c.recv, c.count,
                             c.type, kRoot, c.comm, &c.requests->emplace_back());
        },
    .in_place_refusal = "",
    .mpi_in_place_refusal = "",
    .nccl_tests_binary = "gather_perf",
    .verdicts = {},
};

}  // namespace splitstep
