// A data-parallel training step's time from its compute time and its gradient buckets'
// allreduce times: the model the step's projection to more ranks rests on (docs/metrics.md,
// "Projection"). Pure functions of numbers.
#pragma once

#include <span>

namespace splitstep {

// T_seq: the buckets are reduced one after another once backward has ended.
double sequentialStepTime(double compute, std::span<const double> bucket_seconds);

// T_ddp: backward produces the gradients at a constant rate, so bucket i is ready once the share
// of all gradient bytes up to and including it has been produced; the buckets are reduced one
// after another on their own stream, each once it is ready and the one before has finished, and
// the reductions do not slow the backward pass. The step ends when backward and the last
// reduction have both ended. `bucket_bytes` and `bucket_seconds` in launch order.
double overlappedStepTime(double compute, double backward, std::span<const double> bucket_bytes,
                          std::span<const double> bucket_seconds);

}  // namespace splitstep
