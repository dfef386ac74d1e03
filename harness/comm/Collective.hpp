// A collective, declared once (as nccl-tests declares each in a `struct testColl`): its name, how
// it lays out its buffers, its bus-bandwidth factor, the values a correct result holds, and its
// call on each backend. Each lives in a file of its own under comm/collectives/; adding one is
// that file and a line in comm/Collectives.cpp.
#pragma once

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "comm/CollectiveLayout.hpp"
#include "common/AlgorithmCost.hpp"
#include "pattern.cuh"

namespace splitstep {

// One call of a collective on NCCL: `count` is the NCCL call's count argument (layout.call_count).
struct NcclCall {
  const void* send;
  void* recv;
  std::size_t count;
  ncclDataType_t type;
  std::size_t element_bytes;
  ncclComm_t comm;
  cudaStream_t stream;
  int rank;
  int ranks;
};

// One call on MPI, non-blocking: the call appends its requests, which the caller waits for under
// the watchdog. `count` fits an int (the communicator refuses larger calls first).
struct MpiCall {
  const void* send;
  void* recv;
  int count;
  MPI_Datatype type;
  std::size_t element_bytes;
  MPI_Comm comm;
  int rank;
  int ranks;
  bool device_buffers;  // a CUDA-aware MPI on GPU buffers
  std::vector<MPI_Request>* requests;
};

struct CollectiveDescriptor {
  std::string_view name;  // the suite's name and the report's: "allreduce"
  std::string_view help;  // one line for the usage text
  bool in_default_run;    // run when no suite is named
  bool reduction;         // adds values up: MPI has no bf16/fp16 sum; low precisions round
  // busbw = algbw x factor for `ranks` > 1 (nccl-tests' doc/PERFORMANCE.md): the share of the
  // data each rank's link carries, so that busbw compares with the link's peak.
  double (*bus_factor)(double ranks);
  // Its algorithms in the latency-bandwidth model (common/AlgorithmCost.hpp), which project its
  // time to other rank counts. The first is the one busbw assumes (its bandwidth share is the
  // bus factor): the link's latency and bandwidth are derived from a measurement with it.
  std::span<const AlgorithmCost> algorithms;
  // The buffers of a call whose larger buffer holds `count` elements (nccl-tests' size).
  CollectiveLayout (*layout)(std::size_t count, std::size_t ranks, std::size_t rank);
  // What this rank must find in its receive buffer after one call on the check pattern.
  kernels::ExpectSpec (*expect)(const CollectiveLayout& layout, int rank, int ranks);
  // Only the root (rank 0) holds a result to check (reduce, gather).
  bool result_at_root_only;
  ncclResult_t (*nccl)(const NcclCall& call);
  int (*mpi)(const MpiCall& call);  // an MPI error code
  // Where no backend runs it in place (nccl-tests defines no in-place all-to-all): why (empty:
  // they can).
  std::string_view in_place_refusal;
  // Where MPI cannot run it in place as NCCL does: why (empty: it can).
  std::string_view mpi_in_place_refusal;
};

// Every collective, in the order suites and the usage text list them.
std::span<const CollectiveDescriptor* const> collectives();
// The collective called `name`; nullptr if there is none.
const CollectiveDescriptor* findCollective(std::string_view name);

// The two collectives a training step's gradient sync uses.
const CollectiveDescriptor& allReduce();
const CollectiveDescriptor& broadcast();

// busbw / algbw at `ranks`; empty for a single rank, where no data crosses a link and bus
// bandwidth is not defined.
std::optional<double> busBandwidthFactor(const CollectiveDescriptor& collective, int ranks);

// The layout of a call on `size` bytes (nccl-tests' size: the larger buffer) of
// `element_bytes`-byte elements; empty (count 0) when it holds fewer elements than the collective
// needs.
CollectiveLayout layoutFor(const CollectiveDescriptor& collective, std::uint64_t size,
                           std::size_t element_bytes, int ranks, int rank);

}  // namespace splitstep
