// The rates cases derive from their times, each declared once: the suites that add them, the
// analyses and reporters that read them and the results file's catalogue (which readers in other
// languages take them from) name them through these constants.
#pragma once

#include <string>
#include <string_view>

#include "measure/Sample.hpp"

namespace splitstep {

struct RateSpec {
  std::string_view key;   // a stable identifier for readers: "busbw"
  std::string_view name;  // as a case's rates name it, in results files and tables: "busbw GB/s"
  std::string_view unit;
  double scale = 1;  // value = amount per loop / seconds / scale: 1e9 for GB/s
};

namespace rates {

inline constexpr RateSpec kAlgbw{"algbw", "algbw GB/s", "GB/s", 1e9};
inline constexpr RateSpec kBusbw{"busbw", "busbw GB/s", "GB/s", 1e9};
inline constexpr RateSpec kMemoryBandwidth{"memory_bandwidth", "GB/s", "GB/s", 1e9};
inline constexpr RateSpec kTflops{"tflops", "TFLOP/s", "TFLOP/s", 1e12};
inline constexpr RateSpec kSamplesPerSecond{"samples_per_second", "samples/s", "samples/s", 1};

// The rate `spec` of a case that moves `amount_per_loop` (bytes, FLOP, samples) each loop.
inline Rate of(const RateSpec& spec, double amount_per_loop) {
  return {std::string(spec.name), amount_per_loop, spec.scale};
}

}  // namespace rates
}  // namespace splitstep
