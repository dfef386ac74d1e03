// sendrecv: each rank sends its buffer to the next rank of a ring and receives the previous
// rank's (pipeline parallelism's pattern between stages).
#include <cstddef>

#include "comm/Collective.hpp"

namespace splitstep {
namespace {

// One message to one neighbour, whatever the rank count.
const AlgorithmCost kAlgorithms[] = {
    {"direct", [](double) { return 1.0; }, [](double) { return 1.0; }},
};

constexpr int kTag = 0;

int next(int rank, int ranks) { return (rank + 1) % ranks; }
int previous(int rank, int ranks) { return (rank - 1 + ranks) % ranks; }

}  // namespace

extern const CollectiveDescriptor kSendRecv = {
    .name = "sendrecv",
    .help = "each rank's buffer to the next rank of a ring",
    .in_default_run = false,
    .reduction = Reduction::None,
    .root = std::nullopt,
    .bus_factor = [](double) { return 1.0; },
    .algorithms = kAlgorithms,
    .layout = wholeBufferLayout,
    .expect = [](const CollectiveLayout&, int rank, int ranks) -> kernels::ExpectSpec {
      return {.sum = false, .world = ranks, .source_rank = previous(rank, ranks)};
    },
    .result_at_root_only = false,
    .nccl =
        [](const NcclCall& c) {
          ncclResult_t result = ncclGroupStart();
          if (result == ncclSuccess) {
            result = ncclSend(c.send, c.count, c.type, next(c.rank, c.ranks), c.comm, c.stream);
          }
          if (result == ncclSuccess) {
            result = ncclRecv(c.recv, c.count, c.type, previous(c.rank, c.ranks), c.comm, c.stream);
          }
          // A group once opened is closed, whatever failed inside it.
          const ncclResult_t ended = ncclGroupEnd();
          return result != ncclSuccess ? result : ended;
        },
    .mpi =
        [](const MpiCall& c) {
          const int received = MPI_Irecv(c.recv, c.count, c.type, previous(c.rank, c.ranks), kTag,
                                         c.comm, &c.requests->emplace_back());
          if (received != MPI_SUCCESS) return received;
          return MPI_Isend(c.send, c.count, c.type, next(c.rank, c.ranks), kTag, c.comm,
                           &c.requests->emplace_back());
        },
    // nccl-tests times an in-place send/receive without checking it: the buffer a rank sends
    // is the one its neighbour's message lands in.
    .in_place_refusal =
        "no in-place send/receive: the message received would overwrite the one sent",
    .mpi_in_place_refusal = "",
    .nccl_tests_binary = "sendrecv_perf",
    .verdicts = {},
};

}  // namespace splitstep
