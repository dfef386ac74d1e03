// The case schema of the step suite: one sync mode of one model's training step, and the detail
// series of its gradient buckets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cases/CaseFamily.hpp"
#include "options/StepPlan.hpp"

namespace splitstep {

// A straggler on purpose (--delay-rank, --delay).
struct StepDelay {
  std::int64_t rank = 0;
  double seconds = 0;

  bool operator==(const StepDelay&) const = default;
};

// How the synchronised modes bucket the gradients.
struct StepBuckets {
  std::int64_t count = 0;
  std::int64_t gradient_bytes = 0;
  IntegerList bytes;  // per bucket, in launch order

  bool operator==(const StepBuckets&) const = default;
};

// A detail series: one bucket's timeline quantity ("ready", "comm", ...).
struct StepBucketSeries {
  std::int64_t bucket = 0;
  std::int64_t bytes = 0;
  std::string quantity;

  bool operator==(const StepBucketSeries&) const = default;
};

struct StepCase {
  std::string model;  // the step model's name
  StepPrecision precision = StepPrecision::Fp32;
  SyncMode mode = SyncMode::None;
  StepOptimizer optimizer = StepOptimizer::Sgd;
  OptimizerImpl optimizer_impl = OptimizerImpl::Foreach;
  InputSource input = InputSource::Pinned;
  std::int64_t batch = 0;    // samples per rank and step
  double flop_per_step = 0;  // of one rank's step
  std::int64_t world_size = 0;
  std::int64_t parameters = 0;
  bool on_cuda = false;  // what the rank ran on
  std::optional<StepDelay> delay;
  std::optional<StepBuckets> buckets;      // the synchronised modes only
  std::optional<StepBucketSeries> bucket;  // a bucket's detail series only
  StepLaunch launch = StepLaunch::Eager;   // graph: the step timed by CUDA graph replays

  bool operator==(const StepCase&) const = default;

  CaseFields encode() const;
  static std::optional<StepCase> decode(const CaseFields& fields);
  static const CaseFamily& family();
};

}  // namespace splitstep
