// One rank's measurements of one case: what suites produce and every later layer consumes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/CaseFields.hpp"
#include "measure/Measurement.hpp"
#include "telemetry/TelemetrySummary.hpp"

namespace splitstep {

// A throughput derived from time: value = amount_per_loop / seconds / scale
// (e.g. {"TFLOP/s", 2n^3, 1e12}, {"busbw GB/s", bytes * 2(n-1)/n, 1e9}).
struct Rate {
  std::string name;
  double amount_per_loop = 0;
  double scale = 1;
};

// A correctness check run outside the timed region.
struct Check {
  std::string name;
  std::uint64_t checked = 0;  // elements examined
  std::uint64_t wrong = 0;    // elements that differed from the expected value
};

// Cases of one group are compared with the group's baseline case: speed-up = baseline time /
// case time (matmul: every dtype against fp32 at the same shape).
struct Comparison {
  std::string group;     // empty: not compared
  std::string baseline;  // the baseline's name in reports, e.g. "fp32"
  bool is_baseline = false;
};

struct Sample {
  std::string suite;
  std::string case_name;
  std::string series;  // what was timed within the case (a phase, or the whole operation)
  // The series this one is a part of (a phase of a training step: "step"); empty for a whole.
  std::string part_of;
  // A fine-grained series (one gradient bucket's timeline) that results files keep and the
  // console's tables leave out; figures derived from it summarise it there.
  bool detail = false;
  std::string unit = "s";
  CaseFields fields;  // typed, encoded by the suite's case schema (harness/cases/)
  std::vector<Rate> rates;
  std::vector<Check> checks;
  std::vector<std::string> notes;  // from the suite, e.g. why a case was skipped
  Comparison comparison;
  Measurement measurement;  // empty values: the case was skipped on this rank
  // The GPU's telemetry while the samples ran (a phase: while it ran); empty without a sampler.
  std::optional<TelemetrySummary> telemetry;
};

}  // namespace splitstep
