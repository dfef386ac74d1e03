#include "common/Units.hpp"

#include <fmt/format.h>

#include <cmath>

namespace splitstep {

std::string formatBytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t unit = 0;
  while (unit + 1 < std::size(kUnits) && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{} {}", bytes, kUnits[unit]);
}

std::string formatBytesApprox(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::size_t unit = 0;
  while (unit + 1 < std::size(kUnits) && std::fabs(bytes) >= 1024) {
    bytes /= 1024;
    ++unit;
  }
  const int decimals = unit == 0 || std::fabs(bytes) >= 100 ? 0 : (std::fabs(bytes) >= 10 ? 1 : 2);
  return fmt::format("{:.{}f} {}", bytes, decimals, kUnits[unit]);
}

TimeUnit timeUnitOf(double seconds) {
  static constexpr TimeUnit kUnits[] = {{1, "s"}, {1e3, "ms"}, kMicroseconds, {1e9, "ns"}};
  for (const TimeUnit& unit : kUnits) {
    // The tolerance keeps 1e-6 s (0.99999... us in binary) in microseconds.
    if (std::fabs(seconds * unit.factor) >= 1.0 - 1e-9) return unit;
  }
  return kUnits[3];
}

std::string formatSeconds(double seconds) {
  const TimeUnit unit = timeUnitOf(seconds);
  const double value = seconds * unit.factor;
  const int decimals = std::fabs(value) >= 100 ? 1 : (std::fabs(value) >= 10 ? 2 : 3);
  return fmt::format("{:.{}f} {}", value, decimals, unit.name);
}

}  // namespace splitstep
