// broadcast: every rank ends with rank 0's buffer.
#include <cstring>

#include "comm/Collective.hpp"
#include "comm/RootedAlgorithms.hpp"

namespace splitstep {
namespace {

// nccl-tests' default root (-r 0).
constexpr int kRoot = 0;

}  // namespace

extern const CollectiveDescriptor kBroadcast = {
    .name = "broadcast",
    .help = "rank 0's buffer on every rank",
    .in_default_run = false,
    .reduction = Reduction::None,
    .root = kRoot,
    .bus_factor = [](double) { return 1.0; },
    .algorithms = kRootedAlgorithms,
    .layout = wholeBufferLayout,
    .expect = [](const CollectiveLayout&, int, int ranks) -> kernels::ExpectSpec {
      return {.sum = false, .world = ranks, .source_rank = kRoot};
    },
    .result_at_root_only = false,
    .nccl =
        [](const NcclCall& c) {
          return ncclBroadcast(c.send, c.recv, c.count, c.type, kRoot, c.comm, c.stream);
        },
    .mpi =
        [](const MpiCall& c) {
          if (c.rank == kRoot && c.send != c.recv) {
            // MPI broadcasts in one buffer; the root's output is its input.
            const std::size_t bytes = static_cast<std::size_t>(c.count) * c.element_bytes;
            if (c.device_buffers) {
              cudaMemcpy(c.recv, c.send, bytes, cudaMemcpyDeviceToDevice);
            } else {
              std::memcpy(c.recv, c.send, bytes);
            }
          }
          return MPI_Ibcast(c.recv, c.count, c.type, kRoot, c.comm, &c.requests->emplace_back());
        },
    .in_place_refusal = "",
    .mpi_in_place_refusal = "",
    .nccl_tests_binary = "broadcast_perf",
    .verdicts = {},
};

}  // namespace splitstep
