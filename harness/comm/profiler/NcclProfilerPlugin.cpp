// splitstep's NCCL profiler plugin: NCCL calls it for every collective it launches, with the
// algorithm, protocol and channel count it chose (the ncclProfileColl event of profiler API v5,
// NCCL 2.28 and later), and it keeps the last kSplitstepNcclCallsHeld of them for splitstep to
// read (NcclCallLog.hpp). It asks NCCL for those events alone, and returns no event handles:
// NCCL then makes no further calls for them. A shared library of its own (NCCL dlopens it),
// with only NCCL's symbol and the two readers exported.
#include <sys/types.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>

#include "comm/profiler/NcclCallLog.hpp"
// NCCL's plugin headers, vendored from NCCL 2.28.9 (nccl/): err.h first, for ncclResult_t.
// clang-format off
#include "nccl/err.h"
#include "nccl/profiler.h"
// clang-format on

namespace {

std::mutex log_mutex;
std::array<SplitstepNcclCall, kSplitstepNcclCallsHeld> log_calls;
std::uint64_t log_recorded = 0;

// Every communicator's context: the plugin keeps one log for the process, whose collectives
// splitstep attributes by when they ran; NCCL only needs a context that is not null.
int context_marker = 0;

template <std::size_t N>
void copyName(char (&to)[N], const char* from) {
  std::strncpy(to, from != nullptr ? from : "", N - 1);
  to[N - 1] = '\0';
}

ncclResult_t init(void** context, uint64_t, int* eActivationMask, const char*, int, int, int,
                  ncclDebugLogger_t) {
  *context = &context_marker;
  *eActivationMask = ncclProfileColl;
  return ncclSuccess;
}

ncclResult_t startEvent(void*, void** eHandle, ncclProfilerEventDescr_v5_t* eDescr) {
  // NCCL also starts the group and API events that enclose a collective: none is kept.
  *eHandle = nullptr;
  if (eDescr->type != ncclProfileColl) return ncclSuccess;
  SplitstepNcclCall call{};
  copyName(call.algorithm, eDescr->coll.algo);
  copyName(call.protocol, eDescr->coll.proto);
  call.channels = eDescr->coll.nChannels;
  const std::lock_guard<std::mutex> lock(log_mutex);
  log_calls[log_recorded % kSplitstepNcclCallsHeld] = call;
  ++log_recorded;
  return ncclSuccess;
}

// NCCL stops and updates only the events it was given a handle for: never those of startEvent.
ncclResult_t stopEvent(void*) { return ncclSuccess; }

ncclResult_t recordEventState(void*, ncclProfilerEventState_v5_t,
                              ncclProfilerEventStateArgs_v5_t*) {
  return ncclSuccess;
}

// The log outlives each communicator: splitstep reads it after the communicators are gone too.
ncclResult_t finalize(void*) { return ncclSuccess; }

}  // namespace

extern "C" {

__attribute__((visibility("default"))) ncclProfiler_v5_t ncclProfiler_v5 = {
    "splitstep", init, startEvent, stopEvent, recordEventState, finalize};

__attribute__((visibility("default"))) std::uint64_t splitstep_nccl_calls_recorded() {
  const std::lock_guard<std::mutex> lock(log_mutex);
  return log_recorded;
}

__attribute__((visibility("default"))) std::size_t splitstep_nccl_calls_read(std::uint64_t first,
                                                                             SplitstepNcclCall* out,
                                                                             std::size_t capacity) {
  const std::lock_guard<std::mutex> lock(log_mutex);
  const std::uint64_t oldest =
      log_recorded > kSplitstepNcclCallsHeld ? log_recorded - kSplitstepNcclCallsHeld : 0;
  std::size_t copied = 0;
  for (std::uint64_t i = std::max(first, oldest); i < log_recorded && copied < capacity; ++i) {
    out[copied++] = log_calls[i % kSplitstepNcclCallsHeld];
  }
  return copied;
}
}
