// How much memory this rank could still have: free device memory, and the host's available
// memory. Read once at start, to estimate cases against (common/MemoryBudget).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace splitstep {

// cudaMemGetInfo's free bytes on the current device.
std::uint64_t freeDeviceMemory();

// MemAvailable of /proc/meminfo: the kernel's estimate of what can be allocated without
// swapping. A best effort: some hosts (containers, early boot) report little or nothing; empty
// where it cannot be read.
std::optional<std::uint64_t> availableHostMemory();

// The MemAvailable line of a /proc/meminfo text, in bytes.
std::optional<std::uint64_t> parseMemAvailable(std::string_view meminfo);

// The line "KEY:   N kB" of a /proc text (meminfo, PID/status), in bytes.
std::optional<std::uint64_t> parseProcKibibytes(std::string_view text, std::string_view key);

}  // namespace splitstep
