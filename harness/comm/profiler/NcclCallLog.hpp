// What splitstep's NCCL profiler plugin (libnccl-profiler-splitstep.so, NcclProfilerPlugin.cpp)
// keeps of each collective NCCL launches, and the C functions it exports to read it back. NCCL
// loads the plugin where NCCL_PROFILER_PLUGIN names its path; a dlopen of that same path returns
// the library NCCL loaded, whose functions read what NCCL told it. Plain C types only: the
// harness includes this beside nccl.h, the plugin beside NCCL's plugin headers, whose
// ncclResult_t would clash with nccl.h's.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

// One collective as NCCL described it to the plugin when it launched it (an ncclProfileColl
// event), its names as NCCL spells them ("RING", "SIMPLE"), cut to fit and ended by a '\0'.
struct SplitstepNcclCall {
  char algorithm[24];
  char protocol[16];
  std::int32_t channels;
};

// How many collectives the plugin was told of since it was loaded: the index the next one gets.
using SplitstepNcclCallsRecorded = std::uint64_t (*)();
// Copies the calls from index `first` on, at most `capacity` of them, into `out`, and returns how
// many it copied. Only the last kSplitstepNcclCallsHeld calls are held: where `first` is older,
// the copy starts at the oldest held.
using SplitstepNcclCallsRead = std::size_t (*)(std::uint64_t first, SplitstepNcclCall* out,
                                               std::size_t capacity);
}

inline constexpr std::size_t kSplitstepNcclCallsHeld = 4096;
inline constexpr const char* kSplitstepNcclCallsRecordedSymbol = "splitstep_nccl_calls_recorded";
inline constexpr const char* kSplitstepNcclCallsReadSymbol = "splitstep_nccl_calls_read";
// The plugin's file name, as NCCL's convention for profiler plugins names them.
inline constexpr const char* kSplitstepNcclProfilerFile = "libnccl-profiler-splitstep.so";
