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

std::string formatSeconds(double seconds) {
  struct Scale {
    double factor;
    const char* unit;
  };
  static constexpr Scale kScales[] = {{1, "s"}, {1e3, "ms"}, {1e6, "us"}, {1e9, "ns"}};
  for (const Scale& scale : kScales) {
    const double value = seconds * scale.factor;
    // The tolerance keeps 1e-6 s (0.99999... us in binary) in microseconds.
    if (std::fabs(value) >= 1.0 - 1e-9 || scale.factor == 1e9) {
      const int decimals = std::fabs(value) >= 100 ? 1 : (std::fabs(value) >= 10 ? 2 : 3);
      return fmt::format("{:.{}f} {}", value, decimals, scale.unit);
    }
  }
  return fmt::format("{} s", seconds);
}

}  // namespace splitstep
