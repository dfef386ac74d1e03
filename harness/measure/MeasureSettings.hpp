// How many times a case body runs, untimed and timed.
#pragma once

namespace splitstep {

struct MeasureSettings {
  int warmup = 5;    // untimed executions before the first sample
  int samples = 20;  // timed samples
  int loops = 1;     // executions per sample; a sample's value is its time divided by this
};

}  // namespace splitstep
