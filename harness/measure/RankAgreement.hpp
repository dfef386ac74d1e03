// Decisions every rank must share (loop counts, when to stop), made collectively: a rank never
// decides alone, or ranks would run different numbers of collectives and deadlock.
#pragma once

#include <cstdint>

namespace splitstep {

class RankAgreement {
 public:
  virtual ~RankAgreement() = default;
  // Collective: the largest `value` over all ranks.
  virtual std::int64_t maxOverRanks(std::int64_t value) = 0;
  // Collective: returns once every rank has arrived; the seconds this rank waited for the last.
  virtual double barrier() = 0;
};

// A single process: its own value is the agreement.
class LocalAgreement final : public RankAgreement {
 public:
  std::int64_t maxOverRanks(std::int64_t value) override { return value; }
  double barrier() override { return 0; }
};

}  // namespace splitstep
