// Human-readable quantities for case names and reports.
#pragma once

#include <cstdint>
#include <string>

namespace splitstep {

// Binary units, as nccl-tests sizes are given: 8 -> "8 B", 65536 -> "64 KiB",
// 1536 -> "1536 B" (only exact multiples take a larger unit).
std::string formatBytes(std::uint64_t bytes);
// An amount of bytes to three significant digits in the largest binary unit it fills:
// "2.35 TiB", "140 GiB", "512 B" (estimates, free memory).
std::string formatBytesApprox(double bytes);

// A unit of time: seconds times `factor` are in `name`.
struct TimeUnit {
  double factor;
  const char* name;
};
inline constexpr TimeUnit kMicroseconds{1e6, "us"};
// The largest of s, ms, us, ns in which `seconds` is at least 1 (ns for less), as %timeit picks.
TimeUnit timeUnitOf(double seconds);

// A duration with a unit that keeps 3-4 significant digits: "2.703 ms", "11.2 us", "1.250 s".
std::string formatSeconds(double seconds);

}  // namespace splitstep
