// scatter: rank r ends with block r of rank 0's buffer.
#include <cstddef>
#include <cstdint>

#include "comm/Collective.hpp"
#include "comm/RootedAlgorithms.hpp"

namespace splitstep {
namespace {

// nccl-tests' default root (-r 0). The in-place calls below count on its block being the
// buffer's first.
constexpr int kRoot = 0;

}  // namespace

extern const CollectiveDescriptor kScatter = {
    .name = "scatter",
    .help = "rank 0's buffer in blocks, block r to rank r",
    .in_default_run = false,
    .reduction = Reduction::None,
    .root = kRoot,
    .bus_factor = [](double n) { return (n - 1) / n; },
    .algorithms = kRootedBlockAlgorithms,
    .layout = scatterLayout,
    .expect = [](const CollectiveLayout& l, int rank, int ranks) -> kernels::ExpectSpec {
      return {.sum = false,
              .world = ranks,
              .source_rank = kRoot,
              .offset = static_cast<std::uint64_t>(rank) * l.recv};
    },
    .result_at_root_only = false,
    .nccl =
        [](const NcclCall& c) {
          // The root's send to each rank and every rank's receive from the root, in a group, as
          // nccl-tests calls it and as NCCL's own ncclScatter (2.28) expands it.
          const std::size_t block = c.count * c.element_bytes;
          ncclResult_t result = ncclGroupStart();
          for (int peer = 0; c.rank == kRoot && peer < c.ranks && result == ncclSuccess; ++peer) {
            result =
                ncclSend(static_cast<const char*>(c.send) + static_cast<std::size_t>(peer) * block,
                         c.count, c.type, peer, c.comm, c.stream);
          }
          if (result == ncclSuccess) {
            result = ncclRecv(c.recv, c.count, c.type, kRoot, c.comm, c.stream);
          }
          // A group once opened is closed, whatever failed inside it.
          const ncclResult_t ended = ncclGroupEnd();
          return result != ncclSuccess ? result : ended;
        },
    .mpi =
        [](const MpiCall& c) {
          // In place, the root's block stays at its offset 0: MPI calls that MPI_IN_PLACE.
          const bool in_place = c.rank == kRoot && c.send == c.recv;
          return MPI_Iscatter(c.send, c.count, c.type, in_place ? MPI_IN_PLACE : c.recv, c.count,
                              c.type, kRoot, c.comm, &c.requests->emplace_back());
        },
    .in_place_refusal = "",
    .mpi_in_place_refusal = "",
    .nccl_tests_binary = "scatter_perf",
    .verdicts = {},
};

}  // namespace splitstep
