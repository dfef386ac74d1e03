#include "common/MemoryBudget.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

TEST(MemoryBudget, ACaseFitsInNineTenthsOfWhatIsFree) {
  const MemoryBudget budget{10 * kGiB, 20 * kGiB};
  EXPECT_EQ(budget.shortfall({9 * kGiB, 18 * kGiB}), std::nullopt);
  EXPECT_EQ(budget.shortfall({9 * kGiB + 1, 0}),
            "needs 9.00 GiB of device memory per rank, more than the 9.00 GiB of 10.0 GiB free "
            "that may be used");
  EXPECT_EQ(budget.shortfall({0, 48 * kGiB}),
            "needs 48.0 GiB of host (MemAvailable) memory per rank, more than the 18.0 GiB of "
            "20.0 GiB free that may be used");
}

TEST(MemoryBudget, WhatIsNotKnownDoesNotRefuse) {
  EXPECT_EQ(MemoryBudget{}.shortfall({1ull << 60, 1ull << 60}), std::nullopt);
  const MemoryBudget host_only{std::nullopt, 1 * kGiB};
  EXPECT_EQ(host_only.shortfall({1ull << 60, 0}), std::nullopt);
  EXPECT_TRUE(host_only.shortfall({0, 1 * kGiB}).has_value());
}

}  // namespace
}  // namespace splitstep
