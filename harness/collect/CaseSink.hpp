// Where finished cases go: suites publish to it, and rank 0 gathers and reports them while the
// run goes on.
#pragma once

#include <vector>

#include "measure/Sample.hpp"

namespace splitstep {

// Collective: every rank publishes the same cases, skipped ones included, in the same batches.
class CaseSink {
 public:
  virtual ~CaseSink() = default;
  virtual void publish(std::vector<Sample> samples) = 0;
};

}  // namespace splitstep
