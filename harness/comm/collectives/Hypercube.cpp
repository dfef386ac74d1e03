// hypercube: an allgather by recursive doubling, as nccl-tests' hypercube_perf runs it. Each rank
// first holds its own block; at each of log2(ranks) steps it exchanges every block it holds
// with the rank that differs from it in one bit, so that the blocks it holds double. Each step
// is a grouped send and receive on NCCL (a point-to-point pattern, not NCCL's own allgather),
// and a non-blocking pair waited for before the next on MPI.
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>

#include "comm/Collective.hpp"

namespace splitstep {
namespace {

// log2(ranks) steps; the last moves half the data (Thakur, Rabenseifner & Gropp 2005).
const AlgorithmCost kAlgorithms[] = {
    {"recursive doubling", [](double n) { return std::log2(n); },
     [](double n) { return (n - 1) / n; }},
};

constexpr int kTag = 0;

std::string_view powerOfTwoOnly(int ranks) {
  return (ranks & (ranks - 1)) == 0 ? std::string_view()
                                    : "a hypercube needs a power-of-two number of ranks";
}

// Where rank `rank`'s block lies in the receive buffer.
char* blockOf(void* recv, int rank, std::size_t block_bytes) {
  return static_cast<char*>(recv) + static_cast<std::size_t>(rank) * block_bytes;
}

// At the step that pairs ranks differing in `mask`: the first of the `mask` blocks this rank
// holds, and of those its partner holds.
int heldFrom(int rank, int mask) { return rank & ~(mask - 1); }

}  // namespace

extern const CollectiveDescriptor kHypercube = {
    .name = "hypercube",
    .help =
        "an allgather by recursive doubling, in grouped sends and receives (a power of two "
        "of ranks)",
    .in_default_run = false,
    .reduction = Reduction::None,
    .root = std::nullopt,
    // nccl-tests' busbw: its algbw counts (ranks - 1) blocks, as allgather's busbw does.
    .bus_factor = [](double n) { return (n - 1) / n; },
    .algorithms = kAlgorithms,
    .layout = gatherLayout,
    .expect = [](const CollectiveLayout& l, int, int ranks) -> kernels::ExpectSpec {
      return {.sum = false, .world = ranks, .block = l.send};
    },
    .result_at_root_only = false,
    .nccl =
        [](const NcclCall& c) {
          const std::size_t block = c.count * c.element_bytes;
          char* own = blockOf(c.recv, c.rank, block);
          if (own != c.send && cudaMemcpyAsync(own, c.send, block, cudaMemcpyDeviceToDevice,
                                               c.stream) != cudaSuccess) {
            return ncclUnhandledCudaError;
          }
          for (int mask = 1; mask < c.ranks; mask <<= 1) {
            const int held = heldFrom(c.rank, mask);
            const int peer = c.rank ^ mask;
            const std::size_t count = c.count * static_cast<std::size_t>(mask);
            ncclResult_t result = ncclGroupStart();
            if (result == ncclSuccess) {
              result =
                  ncclSend(blockOf(c.recv, held, block), count, c.type, peer, c.comm, c.stream);
            }
            if (result == ncclSuccess) {
              result = ncclRecv(blockOf(c.recv, held ^ mask, block), count, c.type, peer, c.comm,
                                c.stream);
            }
            // A group once opened is closed, whatever failed inside it.
            const ncclResult_t ended = ncclGroupEnd();
            if (result != ncclSuccess || ended != ncclSuccess) {
              return result != ncclSuccess ? result : ended;
            }
          }
          return ncclSuccess;
        },
    .mpi =
        [](const MpiCall& c) {
          const std::size_t block = static_cast<std::size_t>(c.count) * c.element_bytes;
          char* own = blockOf(c.recv, c.rank, block);
          if (own != c.send) {
            if (!c.device_buffers) {
              std::memcpy(own, c.send, block);
            } else if (cudaMemcpy(own, c.send, block, cudaMemcpyDeviceToDevice) != cudaSuccess) {
              return MPI_ERR_BUFFER;
            }
          }
          for (int mask = 1; mask < c.ranks; mask <<= 1) {
            const int held = heldFrom(c.rank, mask);
            const int peer = c.rank ^ mask;
            // The communicator holds a call's count to an int; a step moves `mask` blocks.
            if (static_cast<long long>(c.count) * mask > std::numeric_limits<int>::max()) {
              return MPI_ERR_COUNT;
            }
            const int count = c.count * mask;
            int result = MPI_Irecv(blockOf(c.recv, held ^ mask, block), count, c.type, peer, kTag,
                                   c.comm, &c.requests->emplace_back());
            if (result != MPI_SUCCESS) return result;
            result = MPI_Isend(blockOf(c.recv, held, block), count, c.type, peer, kTag, c.comm,
                               &c.requests->emplace_back());
            if (result != MPI_SUCCESS) return result;
            c.wait();  // the next step sends what this one received
          }
          return MPI_SUCCESS;
        },
    .in_place_refusal = "",
    .mpi_in_place_refusal = "",
    .nccl_tests_binary = "hypercube_perf",
    .verdicts = {},
    .rank_count_refusal = powerOfTwoOnly,
};

}  // namespace splitstep
