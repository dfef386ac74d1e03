// What the Measurer found for one case on one rank.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/EnumNames.hpp"

namespace splitstep {

// SM clock of a GPU, from NVML.
struct SmClock {
  unsigned current_mhz = 0;
  unsigned max_mhz = 0;
  std::string limited_by;  // what holds the clock down ("power cap", "thermal", ...); may be empty
};

// The rule that ended sampling on a rank (docs/measurement.md): the fixed --samples count,
// --max-time, the case's share of --sweep-time, the median known within --ci-target, std/mean
// within --max-noise, or the noise stable above it. None: no samples were taken.
enum class StopRule {
  None,
  Fixed,
  TimeLimit,
  SweepTime,
  Converged,
  NoiseTarget,
  NoiseStable,
  OutOfReach
};

template <>
struct EnumNames<StopRule> {
  static constexpr std::array values = {
      std::pair{StopRule::None, std::string_view("none")},
      std::pair{StopRule::Fixed, std::string_view("fixed")},
      std::pair{StopRule::TimeLimit, std::string_view("max-time")},
      std::pair{StopRule::SweepTime, std::string_view("sweep-time")},
      std::pair{StopRule::Converged, std::string_view("converged")},
      std::pair{StopRule::NoiseTarget, std::string_view("noise-target")},
      std::pair{StopRule::NoiseStable, std::string_view("noise-stable")},
      std::pair{StopRule::OutOfReach, std::string_view("out-of-reach")}};
};

// Host wall time of each of the Measurer's phases on one rank, waits for other ranks included:
// where a case's time goes. Checks and buffer set-up, outside the Measurer, are not in it.
struct PhaseWallTimes {
  double cold_start = 0;
  double warm_up = 0;
  double prepare = 0;  // timer overhead, graph capture, autorange
  double sampling = 0;
};

struct Measurement {
  std::string clock;                  // what `values` measure: "device (CUDA events)", ...
  std::string method;                 // how: "back-to-back", "queued start", "CUDA graph", ...
  std::vector<double> values;         // seconds per execution, one per sample
  std::vector<double> host_values;    // seconds the host spent enqueuing, per execution
  std::vector<double> arrival_waits;  // seconds waited at the pre-sample barrier (align_ranks)
  double cold = 0;                    // the very first execution, on its own (same clock)
  double cold_host = 0;
  int loops = 0;                  // executions per sample
  double timer_overhead = 0;      // seconds an empty timed interval reads
  double noise = 0;               // std/mean of `values`: the workload's spread
  bool noise_target_met = false;  // noise <= --max-noise
  StopRule stop_rule = StopRule::None;
  std::string stop_reason;  // the rule in words, with its figure: "estimate converged (...)"
  PhaseWallTimes wall;
  std::optional<SmClock> clock_at_start;  // when timing started (after warm-up)
  std::optional<SmClock> clock_at_end;
  std::vector<std::string> notes;  // fallbacks and warnings from the Measurer
};

}  // namespace splitstep
