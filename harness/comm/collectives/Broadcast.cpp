// broadcast: every rank ends with rank 0's buffer.
#include <cmath>
#include <cstring>

#include "comm/Collective.hpp"

namespace splitstep {
namespace {

// Ring: a pipelined chain, the last rank n - 1 hops from the root. Tree: two pipelined binary
// trees, each carrying half the data (Sanders, Speck & Traeff 2009).
const AlgorithmCost kAlgorithms[] = {
    {"ring", [](double n) { return n - 1; }, [](double) { return 1.0; }},
    {"tree", [](double n) { return std::ceil(std::log2(n)); }, [](double) { return 1.0; }},
};

}  // namespace

extern const CollectiveDescriptor kBroadcast = {
    .name = "broadcast",
    .help = "rank 0's buffer on every rank",
    .in_default_run = false,
    .reduction = false,
    .bus_factor = [](double) { return 1.0; },
    .algorithms = kAlgorithms,
    .layout = [](std::size_t count, std::size_t, std::size_t) -> CollectiveLayout {
      return {.count = count, .send = count, .recv = count, .call_count = count};
    },
    .expect = [](const CollectiveLayout&, int, int ranks) -> kernels::ExpectSpec {
      return {.sum = false, .world = ranks, .source_rank = 0};
    },
    .result_at_root_only = false,
    .nccl =
        [](const NcclCall& c) {
          return ncclBroadcast(c.send, c.recv, c.count, c.type, 0, c.comm, c.stream);
        },
    .mpi =
        [](const MpiCall& c) {
          if (c.rank == 0 && c.send != c.recv) {
            // MPI broadcasts in one buffer; the root's output is its input.
            const std::size_t bytes = static_cast<std::size_t>(c.count) * c.element_bytes;
            if (c.device_buffers) {
              cudaMemcpy(c.recv, c.send, bytes, cudaMemcpyDeviceToDevice);
            } else {
              std::memcpy(c.recv, c.send, bytes);
            }
          }
          return MPI_Ibcast(c.recv, c.count, c.type, 0, c.comm, &c.requests->emplace_back());
        },
    .in_place_refusal = "",
    .mpi_in_place_refusal = "",
};

}  // namespace splitstep
