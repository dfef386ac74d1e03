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
  constexpr std::string_view kKey = "MemAvailable:";
  const std::size_t at = meminfo.find(kKey);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = meminfo.substr(at + kKey.size());
  rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
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
