// When to stop taking samples: pure functions, so the rule can be tested with made-up samples.
#pragma once

#include <span>

#include "measure/MeasureSettings.hpp"

namespace splitstep {

// Ordered so that the maximum over ranks is the job's decision: any rank over its time limit
// stops everyone; otherwise any rank that needs more keeps everyone sampling.
enum class StopState { Done = 0, Continue = 1, TimeLimit = 2 };

// `values`: seconds per execution so far; `timed_seconds`: the sum of the samples' full
// durations; `wall_seconds`: time since sampling began. Done when the fixed count is reached,
// or when there are at least min_samples, min_time of timed samples and noise <= max_noise.
StopState evaluateStop(const MeasureSettings& settings, std::span<const double> values,
                       double timed_seconds, double wall_seconds);

// std/mean of `values`, the noise the rule compares with max_noise (0 for fewer than 2 values).
double relativeNoise(std::span<const double> values);

// Autorange's next loop count: enough for a sample of `target_seconds` after one of `loops`
// lasted `sample_seconds`, with 20% to spare; at least double, at most 100x, and at most
// max_loops. Returns `loops` itself when the sample already lasted long enough.
int nextLoopCount(int loops, double sample_seconds, double target_seconds, int max_loops);

}  // namespace splitstep
