// A CaseSink for tests: keeps what a suite publishes, batch by batch.
#pragma once

#include <utility>
#include <vector>

#include "suites/Suite.hpp"

namespace splitstep::testing {

class CollectingSink final : public CaseSink {
 public:
  void publish(std::vector<Sample> samples) override { batches.push_back(std::move(samples)); }

  // Every sample published so far, in order; the sink is empty afterwards.
  std::vector<Sample> take() {
    std::vector<Sample> all;
    for (std::vector<Sample>& batch : batches) {
      for (Sample& sample : batch) all.push_back(std::move(sample));
    }
    batches.clear();
    return all;
  }

  std::vector<std::vector<Sample>> batches;
};

}  // namespace splitstep::testing
