// The matmul suite's cases, in the order run() reports them, and why each is skipped or the
// suite refused, on a CPU and a GPU budget alike.
#include "suites/MatmulSpace.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace splitstep {
namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

MatmulPlan plan(std::vector<MatmulDtype> dtypes) {
  return {{{128, 128, 128}, {65536, 65536, 65536}}, std::move(dtypes)};
}

TEST(MatmulSpace, CasesRunByDtypeThenShape) {
  const MatmulSpace space(plan({MatmulDtype::Fp32, MatmulDtype::Tf32}), false, {});
  std::vector<std::string> names;
  for (const MatmulCase& c : space.cases()) names.push_back(MatmulSpace::name(c));
  EXPECT_EQ(names,
            (std::vector<std::string>{"fp32 n=128", "fp32 n=65536", "tf32 n=128", "tf32 n=65536"}));
  EXPECT_EQ(MatmulSpace::name({MatmulDtype::Bf16, {128, 64, 32}, {}}), "bf16 128x64x32");
}

TEST(MatmulSpace, WhyNotSaysWhatEachSkipSays) {
  const MemoryBudget budget{std::nullopt, 16 * kGiB};
  const MatmulSpace cpu(plan({MatmulDtype::Fp32, MatmulDtype::Tf32}), false, budget);
  const auto& cases = cpu.cases();
  EXPECT_EQ(cpu.whyNot(cases[0]), std::nullopt);
  // Three 65536^2 fp32 matrices: 48 GiB of the host's.
  const auto big = cpu.whyNot(cases[1]);
  EXPECT_EQ(big->reason, *budget.shortfall({0, 48 * kGiB}) + " (three matrices)");
  EXPECT_TRUE(big->beyond_limit);
  // tf32 has no CPU form at any size.
  for (const MatmulCase& tf32 : {cases[2], cases[3]}) {
    const auto skip = cpu.whyNot(tf32);
    EXPECT_EQ(skip->reason, "tf32 is a CUDA tensor-core mode; the CPU has none");
    EXPECT_FALSE(skip->beyond_limit);
  }
  const MatmulSpace gpu(plan({MatmulDtype::Tf32}), true, {16 * kGiB, std::nullopt});
  EXPECT_EQ(gpu.whyNot(gpu.cases()[0]), std::nullopt);
  EXPECT_TRUE(gpu.whyNot(gpu.cases()[1])->beyond_limit);
}

TEST(MatmulSpace, RefusedWhereNoCaseFits) {
  const MemoryBudget budget{std::nullopt, 16 * kGiB};
  MatmulPlan big = plan({MatmulDtype::Tf32, MatmulDtype::Fp32});
  big.shapes = {{65536, 65536, 65536}};
  // The first case beyond a limit is named: tf32 would not run on the CPU at any size.
  EXPECT_EQ(MatmulSpace(big, false, budget).refusal(),
            "--matmul-sizes: no case fits on these ranks; fp32 n=65536: " +
                *budget.shortfall({0, 48 * kGiB}) + " (three matrices)");
  EXPECT_EQ(MatmulSpace(plan({MatmulDtype::Fp32}), false, budget).refusal(), std::nullopt);
  // tf32 alone on the CPU is skipped case by case: no smaller size would let it run.
  big.dtypes = {MatmulDtype::Tf32};
  EXPECT_EQ(MatmulSpace(big, false, budget).refusal(), std::nullopt);
}

}  // namespace
}  // namespace splitstep
