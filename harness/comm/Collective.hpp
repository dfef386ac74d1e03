// A collective, declared once (as nccl-tests declares each in a `struct testColl`): its name, its
// root and reduction, how it lays out its buffers, its bus-bandwidth factor, the values a correct
// result holds, its call on each backend, its nccl-tests binary and the verdicts that judge it.
// Each lives in a file of its own under comm/collectives/; adding one is that file and a line in
// comm/Collectives.cpp (docs/extending.md).
#pragma once

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "comm/CollectiveLayout.hpp"
#include "common/AlgorithmCost.hpp"
#include "common/EnumNames.hpp"
#include "pattern.cuh"

namespace splitstep {

// What a collective does with the ranks' values. The names are nccl-tests' redop column's.
enum class Reduction { None, Sum };

template <>
struct EnumNames<Reduction> {
  static constexpr std::array values = {std::pair{Reduction::None, std::string_view("none")},
                                        std::pair{Reduction::Sum, std::string_view("sum")}};
};

// A judgement made of a collective's busbw beyond its own cases, which therefore needs a
// collective whose busbw stands for the links: allreduce's, the figure nccl-tests and the
// reference tables quote.
enum class CollectiveVerdict {
  NodeBusbw,     // the node verdict's busbw item, held to the reference figures (docs/verdict.md)
  ScalingBusbw,  // the busbw table by rank count of `splitstep-analysis scaling`
};

template <>
struct EnumNames<CollectiveVerdict> {
  // The results file's catalogue names them so (docs/results-schema.md).
  static constexpr std::array values = {
      std::pair{CollectiveVerdict::NodeBusbw, std::string_view("node-busbw")},
      std::pair{CollectiveVerdict::ScalingBusbw, std::string_view("scaling-busbw")}};
};

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
  // Waits, under the watchdog, for the requests appended so far: a call in steps, each sending
  // what the one before received, waits between them.
  std::function<void()> wait;
};

struct CollectiveDescriptor {
  std::string_view name;  // the suite's name and the report's: "allreduce"
  std::string_view help;  // one line for the usage text
  bool in_default_run;    // run when no suite is named
  // Sum adds values up: MPI has no bf16/fp16 sum, and low precisions round.
  Reduction reduction;
  // The rank a rooted collective sends from or gathers to; empty where every rank is alike.
  std::optional<int> root;
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
  // Only the root holds a result to check (reduce, gather).
  bool result_at_root_only;
  ncclResult_t (*nccl)(const NcclCall& call);
  int (*mpi)(const MpiCall& call);  // an MPI error code
  // Where no backend runs it in place (nccl-tests defines no in-place all-to-all): why (empty:
  // they can).
  std::string_view in_place_refusal;
  // Where MPI cannot run it in place as NCCL does: why (empty: it can).
  std::string_view mpi_in_place_refusal;
  // The nccl-tests binary that measures it ("all_reduce_perf"), whose table the console's
  // nccl-tests format prints and whose output `splitstep-analysis nccl-tests` reads.
  std::string_view nccl_tests_binary;
  // The judgements made of its busbw beyond its own cases; most collectives have none.
  std::span<const CollectiveVerdict> verdicts;
  // Where it cannot run on `ranks` ranks (a hypercube's power of two): why, skipping the cases
  // of that many ranks; empty or none: it runs on any count.
  std::string_view (*rank_count_refusal)(int ranks) = nullptr;

  bool judgedBy(CollectiveVerdict verdict) const {
    return std::find(verdicts.begin(), verdicts.end(), verdict) != verdicts.end();
  }
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
