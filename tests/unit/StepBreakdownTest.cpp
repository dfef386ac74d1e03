#include "derived/StepBreakdown.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

constexpr double kMs = 1e-3;

std::vector<double> ms(std::initializer_list<double> values) {
  std::vector<double> seconds;
  for (double v : values) seconds.push_back(v * kMs);
  return seconds;
}

// Two ranks of an overlapped step: rank 1 arrives late, so rank 0's collectives wait.
std::vector<RankSteps> twoRanks() {
  RankSteps r0;
  r0.rank = 0;
  r0.step = ms({113, 114, 112, 113, 115});
  r0.backward = ms({66, 66.5, 65.5, 66, 66});
  r0.sync = ms({5, 5.5, 4.5, 5, 6});
  r0.packing = ms({0, 0, 0, 0, 0});
  r0.comm = ms({12, 12.5, 11, 12, 13});
  r0.step_none = ms({100, 100.5, 99.5, 100, 100});
  r0.backward_none = ms({60, 60, 60.5, 59.5, 60});
  RankSteps r1 = r0;
  r1.rank = 1;
  r1.comm = ms({9, 9.5, 8.5, 9, 9});
  return {r0, r1};
}

void expectPartsAddUp(const StepParts& p) {
  const double sum =
      p.backward_slowdown.value + p.packing.value + p.tail.value + p.wait.value + p.residual.value;
  EXPECT_NEAR(sum, p.delta.value, 1e-6 * kMs);  // within a nanosecond
}

TEST(StepBreakdown, PartsAddUpToTheStepsGrowthOnEveryRankAndOnAverage) {
  const StepBreakdown b = breakDownStep(twoRanks());
  ASSERT_EQ(b.ranks.size(), 2u);
  for (const StepParts& p : b.ranks) expectPartsAddUp(p);
  expectPartsAddUp(b.mean);
  EXPECT_EQ(b.mean.rank, -1);
}

TEST(StepBreakdown, EachPartIsTheDifferenceOfMediansItNames) {
  const StepBreakdown b = breakDownStep(twoRanks());
  const StepParts& r0 = b.ranks[0];
  EXPECT_NEAR(r0.delta.value, 13 * kMs, 1e-12);             // 113 - 100
  EXPECT_NEAR(r0.backward_slowdown.value, 6 * kMs, 1e-12);  // 66 - 60
  EXPECT_NEAR(r0.packing.value, 0, 1e-12);
  // Rank 0's collectives exceed rank 1's by [3 3 2.5 3 4] ms; capped at its sync phase
  // [5 5.5 4.5 5 6] they are all exposed: median wait 3 ms, tail 5 - 3 = 2 ms.
  EXPECT_NEAR(r0.wait.value, 3 * kMs, 1e-12);
  EXPECT_NEAR(r0.tail.value, 2 * kMs, 1e-12);
  EXPECT_NEAR(r0.residual.value, 2 * kMs, 1e-12);  // 13 - 6 - 0 - 2 - 3
  // Rank 1 is the late one: it waits for nobody.
  EXPECT_NEAR(b.ranks[1].wait.value, 0, 1e-12);
  EXPECT_NEAR(b.ranks[1].tail.value, 5 * kMs, 1e-12);
}

TEST(StepBreakdown, IntervalsHoldTheEstimateAndWidenWithTheNoise) {
  std::vector<RankSteps> quiet = twoRanks();
  std::vector<RankSteps> noisy = twoRanks();
  for (RankSteps& r : noisy) {
    for (std::size_t i = 0; i < r.step.size(); ++i) r.step[i] += (i % 2 == 0 ? 4 : -4) * kMs;
  }
  const StepBreakdown q = breakDownStep(quiet);
  const StepBreakdown n = breakDownStep(noisy);
  for (const StepParts* p : {&q.mean, &n.mean}) {
    EXPECT_LE(p->delta.low, p->delta.value);
    EXPECT_GE(p->delta.high, p->delta.value);
  }
  EXPECT_GT(n.mean.delta.high - n.mean.delta.low, q.mean.delta.high - q.mean.delta.low);
  // The same seed gives the same intervals.
  EXPECT_EQ(breakDownStep(noisy).mean.delta.low, n.mean.delta.low);
}

TEST(StepBreakdown, PackingOutsideBackwardIsItsOwnPart) {
  std::vector<RankSteps> ranks = twoRanks();
  for (RankSteps& r : ranks) {
    r.packing = ms({1, 1, 1, 1, 1});  // sequential: the sync phase packs first
    r.backward = r.backward_none;     // and backward runs alone
  }
  const StepBreakdown b = breakDownStep(ranks);
  EXPECT_NEAR(b.ranks[0].packing.value, 1 * kMs, 1e-12);
  EXPECT_NEAR(b.ranks[0].backward_slowdown.value, 0, 1e-12);
  expectPartsAddUp(b.ranks[0]);
}

TEST(StepBreakdown, RanksWithoutStepsAreLeftOut) {
  std::vector<RankSteps> ranks = twoRanks();
  ranks[1].step_none.clear();
  EXPECT_EQ(breakDownStep(ranks).ranks.size(), 1u);
  EXPECT_TRUE(breakDownStep({}).ranks.empty());
}

}  // namespace
}  // namespace splitstep
