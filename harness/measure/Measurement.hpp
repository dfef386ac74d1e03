// What the Measurer found for one case on one rank.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace splitstep {

// SM clock of a GPU, from NVML.
struct SmClock {
  unsigned current_mhz = 0;
  unsigned max_mhz = 0;
  std::string limited_by;  // what holds the clock down ("power cap", "thermal", ...); may be empty
};

// Measurement::stop_reason values.
inline constexpr const char* kStopReasonFixed = "fixed sample count";
inline constexpr const char* kStopReasonTimeLimit = "max-time reached";
inline constexpr const char* kStopReasonNoise = "noise target met on every rank";

struct Measurement {
  std::string clock;                  // what `values` measure: "device (CUDA events)", ...
  std::string method;                 // how: "back-to-back", "queued start", "CUDA graph", ...
  std::vector<double> values;         // seconds per execution, one per sample
  std::vector<double> host_values;    // seconds the host spent enqueuing, per execution
  std::vector<double> arrival_waits;  // seconds waited at the pre-sample barrier (align_ranks)
  double cold = 0;                    // the very first execution, on its own (same clock)
  double cold_host = 0;
  int loops = 0;              // executions per sample
  double timer_overhead = 0;  // seconds an empty timed interval reads
  double noise = 0;           // std/mean of `values`
  bool noise_target_met = false;
  std::string stop_reason;                // why sampling stopped
  std::optional<SmClock> clock_at_start;  // when timing started (after warm-up)
  std::optional<SmClock> clock_at_end;
  std::vector<std::string> notes;  // fallbacks and warnings from the Measurer
};

}  // namespace splitstep
