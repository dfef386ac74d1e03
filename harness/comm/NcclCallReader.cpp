#include "comm/NcclCallReader.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace splitstep {

std::vector<ChoiceCount> countChoices(const std::vector<AlgorithmChoice>& calls) {
  std::vector<ChoiceCount> counts;
  for (const AlgorithmChoice& call : calls) {
    const auto it = std::find_if(counts.begin(), counts.end(),
                                 [&call](const ChoiceCount& c) { return c.choice == call; });
    if (it == counts.end()) {
      counts.push_back({call, 1});
    } else {
      ++it->calls;
    }
  }
  std::stable_sort(counts.begin(), counts.end(),
                   [](const ChoiceCount& a, const ChoiceCount& b) { return a.calls > b.calls; });
  return counts;
}

std::string ncclProfilerBesideProgram() {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() /
          kSplitstepNcclProfilerFile)
      .string();
}

std::optional<std::string> requestNcclProfiler(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) {
    return fmt::format("NCCL's algorithms are not shown: its profiler plugin {} is missing", path);
  }
  if (const char* set = std::getenv("NCCL_PROFILER_PLUGIN"); set != nullptr && path != set) {
    return fmt::format(
        "NCCL's algorithms are not shown: NCCL_PROFILER_PLUGIN names another plugin ({})", set);
  }
  setenv("NCCL_PROFILER_PLUGIN", path.c_str(), 1);
  return std::nullopt;
}

std::shared_ptr<const NcclCallReader> NcclCallReader::ofLoaded(const std::string& path) {
  // RTLD_NOLOAD: the library NCCL loaded, or none; never a copy NCCL was not told of.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  auto* count = reinterpret_cast<SplitstepNcclCallsRecorded>(
      dlsym(handle, kSplitstepNcclCallsRecordedSymbol));
  auto* read =
      reinterpret_cast<SplitstepNcclCallsRead>(dlsym(handle, kSplitstepNcclCallsReadSymbol));
  if (count == nullptr || read == nullptr) {
    dlclose(handle);
    return nullptr;
  }
  return std::shared_ptr<const NcclCallReader>(new NcclCallReader(handle, count, read));
}

NcclCallReader::NcclCallReader(void* handle, SplitstepNcclCallsRecorded count,
                               SplitstepNcclCallsRead read)
    : handle_(handle), recorded_(count), read_(read) {}

NcclCallReader::~NcclCallReader() { dlclose(handle_); }

std::uint64_t NcclCallReader::recorded() const { return recorded_(); }

std::vector<AlgorithmChoice> NcclCallReader::since(std::uint64_t first) const {
  std::vector<SplitstepNcclCall> calls(kSplitstepNcclCallsHeld);
  calls.resize(read_(first, calls.data(), calls.size()));
  std::vector<AlgorithmChoice> choices;
  choices.reserve(calls.size());
  for (const SplitstepNcclCall& call : calls) {
    choices.push_back({call.algorithm, call.protocol, call.channels});
  }
  return choices;
}

}  // namespace splitstep
