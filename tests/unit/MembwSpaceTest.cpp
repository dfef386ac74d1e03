// The membw suite's cases, in the order run() reports them, and why each is skipped or the
// suite refused.
#include "suites/MembwSpace.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace splitstep {
namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

std::vector<std::string> namesOf(const MembwSpace& space) {
  std::vector<std::string> names;
  for (const MembwCase& c : space.cases()) names.push_back(MembwSpace::name(c));
  return names;
}

TEST(MembwSpace, EachSizeRunsEveryKindInOrder) {
  const MembwSpace gpu({{1024, 2048}}, true, {});
  const std::vector<std::string> names = namesOf(gpu);
  ASSERT_EQ(names.size(), 14u);
  EXPECT_EQ(
      std::vector(names.begin(), names.begin() + 7),
      (std::vector<std::string>{"copy 1 KiB", "triad 1 KiB", "memcpy d2d 1 KiB", "h2d pinned 1 KiB",
                                "h2d pageable 1 KiB", "d2h pinned 1 KiB", "d2h pageable 1 KiB"}));
  const auto sizes = gpu.sizes();
  ASSERT_EQ(sizes.size(), 2u);
  EXPECT_EQ(sizes[1].front(), (MembwCase{"copy", 2048}));
  // The CPU has no device-to-device copy; its host<->device copies are cases, skipped.
  const MembwSpace cpu({{1024}}, false, {});
  EXPECT_EQ(namesOf(cpu), (std::vector<std::string>{"copy 1 KiB", "triad 1 KiB", "h2d pinned 1 KiB",
                                                    "h2d pageable 1 KiB", "d2h pinned 1 KiB",
                                                    "d2h pageable 1 KiB"}));
}

TEST(MembwSpace, WhyNotSaysWhatEachSkipSays) {
  const MemoryBudget budget{std::nullopt, 2 * kGiB};
  const MembwSpace cpu({{1024, kGiB}}, false, budget);
  const auto& cases = cpu.cases();
  EXPECT_EQ(cpu.whyNot(cases[0]), std::nullopt);
  const auto copy = cpu.whyNot(cases[2]);
  EXPECT_EQ(copy->reason, "host<->device copies need a CUDA device");
  EXPECT_FALSE(copy->beyond_limit);
  // Three 1 GiB host arrays: past 0.9 x 2 GiB, for every kind of the size, before anything else.
  for (std::size_t i = 6; i < cases.size(); ++i) {
    const auto skip = cpu.whyNot(cases[i]);
    EXPECT_EQ(skip->reason, *budget.shortfall({0, 3 * kGiB})) << MembwSpace::name(cases[i]);
    EXPECT_TRUE(skip->beyond_limit);
  }
  // A GPU holds three device arrays, then one with a pinned and a pageable host copy.
  const MemoryBudget gpu_budget{4 * kGiB, 2 * kGiB};
  const MembwSpace gpu({{kGiB}}, true, gpu_budget);
  EXPECT_EQ(gpu.whyNot(gpu.cases()[0])->reason, *gpu_budget.shortfall({3 * kGiB, 2 * kGiB}));
}

TEST(MembwSpace, RefusedWhereNoSizeFits) {
  const MemoryBudget budget{std::nullopt, 2 * kGiB};
  EXPECT_EQ(MembwSpace({{kGiB}}, false, budget).refusal(),
            "--membw-bytes: no size fits on these ranks; 1 GiB per array " +
                *budget.shortfall({0, 3 * kGiB}));
  EXPECT_EQ(MembwSpace({{1024, kGiB}}, false, budget).refusal(), std::nullopt);
}

}  // namespace
}  // namespace splitstep
