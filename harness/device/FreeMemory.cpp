#include "device/FreeMemory.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>

#include "device/CudaCheck.hpp"

namespace splitstep {

std::uint64_t freeDeviceMemory() {
  std::size_t free = 0;
  std::size_t total = 0;
  SPLITSTEP_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

std::optional<std::uint64_t> availableHostMemory() {
  std::ifstream file("/proc/meminfo");
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  return parseMemAvailable(text.str());
}

std::optional<std::uint64_t> parseMemAvailable(std::string_view meminfo) {
  return parseProcKibibytes(meminfo, "MemAvailable");
}

std::optional<std::uint64_t> parseProcKibibytes(std::string_view text, std::string_view key) {
  std::size_t at = 0;
  // The key at the start of a line, followed by its colon.
  while ((at = text.find(key, at)) != std::string_view::npos) {
    const bool line_start = at == 0 || text[at - 1] == '\n';
    at += key.size();
    if (line_start && at < text.size() && text[at] == ':') break;
  }
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + 1);
  rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
  std::uint64_t kib = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), kib);
  if (error != std::errc() || end == rest.data()) return std::nullopt;
  // The kernel writes "kB" and means KiB.
  if (std::string_view(end, static_cast<std::size_t>(rest.data() + rest.size() - end))
          .starts_with(" kB")) {
    return kib * 1024;
  }
  return std::nullopt;
}

}  // namespace splitstep
