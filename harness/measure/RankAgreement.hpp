// Decisions every rank must share (loop counts, when to stop), made collectively: a rank never
// decides alone, or ranks would run different numbers of collectives and deadlock.
#pragma once

#include <cstdint>
#include <limits>

namespace splitstep {

class RankAgreement {
 public:
  virtual ~RankAgreement() = default;
  // Collective: the largest `value` over all ranks.
  virtual std::int64_t maxOverRanks(std::int64_t value) = 0;
  // Collective: returns once every rank has arrived; the seconds this rank waited for the last.
  virtual double barrier() = 0;
};

// A rank that takes part in every agreement of the others but leaves each decision to them: its
// wish is the smallest possible, so a maximum is theirs. Ranks that wait while another measures
// alone (a single-card step) keep making the same collective calls as the one measuring.
class DeferringAgreement final : public RankAgreement {
 public:
  explicit DeferringAgreement(RankAgreement& others) : others_(others) {}
  std::int64_t maxOverRanks(std::int64_t) override {
    return others_.maxOverRanks(std::numeric_limits<std::int64_t>::min());
  }
  double barrier() override { return others_.barrier(); }

 private:
  RankAgreement& others_;
};

// A single process: its own value is the agreement.
class LocalAgreement final : public RankAgreement {
 public:
  std::int64_t maxOverRanks(std::int64_t value) override { return value; }
  double barrier() override { return 0; }
};

}  // namespace splitstep
