// splitstep's side of its NCCL profiler plugin (comm/profiler/): asking NCCL to load it, and
// reading back the algorithm, protocol and channels NCCL told it of for each collective.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "comm/AlgorithmChoice.hpp"
#include "comm/profiler/NcclCallLog.hpp"

namespace splitstep {

// The plugin's path beside the running program, where the build puts it.
std::string ncclProfilerBesideProgram();

// Sets NCCL_PROFILER_PLUGIN to `path`, which NCCL reads when it makes its first communicator in
// this process: call it before. Returns why not, and sets nothing, where `path` is not a file
// or NCCL_PROFILER_PLUGIN names another plugin already (the user's own profiler comes first).
std::optional<std::string> requestNcclProfiler(const std::string& path);

class NcclCallReader {
 public:
  // The plugin at `path` where NCCL loaded it (a communicator was made since the request);
  // nullptr where it did not: another plugin, an NCCL before 2.28 (no profiler API v5).
  static std::shared_ptr<const NcclCallReader> ofLoaded(const std::string& path);
  ~NcclCallReader();
  NcclCallReader(const NcclCallReader&) = delete;
  NcclCallReader& operator=(const NcclCallReader&) = delete;

  // How many collectives NCCL told the plugin of so far.
  std::uint64_t recorded() const;
  // What NCCL chose for the collectives from index `first` on (the last kSplitstepNcclCallsHeld
  // of them where there were more).
  std::vector<AlgorithmChoice> since(std::uint64_t first) const;

 private:
  NcclCallReader(void* handle, SplitstepNcclCallsRecorded count, SplitstepNcclCallsRead read);

  void* handle_;
  SplitstepNcclCallsRecorded recorded_;
  SplitstepNcclCallsRead read_;
};

}  // namespace splitstep
