// alltoall: rank r's block j goes to rank j, which keeps it as its block r (the exchange of a
// mixture-of-experts layer's tokens).
#include <cstddef>
#include <cstdint>

#include "comm/Collective.hpp"

namespace splitstep {
namespace {

// Direct: each rank exchanges one block with every other rank (Thakur, Rabenseifner & Gropp
// 2005, pairwise exchange), as NCCL does.
const AlgorithmCost kAlgorithms[] = {
    {"direct", [](double n) { return n - 1; }, [](double n) { return (n - 1) / n; }},
};

}  // namespace

extern const CollectiveDescriptor kAllToAll = {
    .name = "alltoall",
    .help = "rank r's block j to rank j, which keeps it as its block r",
    .in_default_run = false,
    .reduction = Reduction::None,
    .root = std::nullopt,
    .bus_factor = [](double n) { return (n - 1) / n; },
    .algorithms = kAlgorithms,
    .layout = [](std::size_t count, std::size_t n, std::size_t) -> CollectiveLayout {
      const std::size_t block = count / n;
      return {.count = block * n, .send = block * n, .recv = block * n, .call_count = block};
    },
    .expect = [](const CollectiveLayout& l, int rank, int ranks) -> kernels::ExpectSpec {
      // Block j holds rank j's elements [r x block, (r + 1) x block).
      return {.sum = false,
              .world = ranks,
              .block = l.call_count,
              .offset = static_cast<std::uint64_t>(rank) * l.call_count};
    },
    .result_at_root_only = false,
    .nccl =
        [](const NcclCall& c) {
          // One send and one receive per peer in a group, as nccl-tests calls it and as NCCL's
          // own ncclAlltoAll (2.28) expands it.
          const std::size_t block = c.count * c.element_bytes;
          ncclResult_t result = ncclGroupStart();
          for (int peer = 0; peer < c.ranks && result == ncclSuccess; ++peer) {
            const std::size_t offset = static_cast<std::size_t>(peer) * block;
            result = ncclSend(static_cast<const char*>(c.send) + offset, c.count, c.type, peer,
                              c.comm, c.stream);
            if (result == ncclSuccess) {
              result = ncclRecv(static_cast<char*>(c.recv) + offset, c.count, c.type, peer, c.comm,
                                c.stream);
            }
          }
          // A group once opened is closed, whatever failed inside it.
          const ncclResult_t ended = ncclGroupEnd();
          return result != ncclSuccess ? result : ended;
        },
    .mpi =
        [](const MpiCall& c) {
          return MPI_Ialltoall(c.send, c.count, c.type, c.recv, c.count, c.type, c.comm,
                               &c.requests->emplace_back());
        },
    // nccl-tests times an in-place all-to-all without checking it: a rank would overwrite the
    // blocks it still has to send.
    .in_place_refusal = "no in-place all-to-all: a rank would overwrite blocks it still sends",
    .mpi_in_place_refusal = "",
    .nccl_tests_binary = "alltoall_perf",
    .verdicts = {},
};

}  // namespace splitstep
