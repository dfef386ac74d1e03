#include "options/RunPlan.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

RunPlan samplePlan() {
  RunPlan plan;
  plan.suites = {"matmul", "allreduce"};
  plan.matmul = {{{4096, 4096, 4096}, {8192, 4096, 1024}}, {MatmulDtype::Bf16}};
  plan.collectives.bytes = {8, 1024};
  plan.collectives.dtypes = {CollectiveDtype::Fp32, CollectiveDtype::Bf16};
  plan.collectives.placements = {Placement::InPlace};
  plan.collectives.backends = {Backend::Nccl, Backend::Mpi};
  return plan;
}

TEST(RunPlan, EntriesNameEveryOptionWithCanonicalValues) {
  const auto entries = samplePlan().entries();
  auto value = [&entries](const std::string& key) {
    for (const auto& [k, v] : entries) {
      if (k == key) return v;
    }
    return std::string("<missing>");
  };
  EXPECT_EQ(value("suites"), "matmul,allreduce");
  EXPECT_EQ(value("matmul-sizes"), "4096,8192x4096x1024");
  EXPECT_EQ(value("matmul-dtypes"), "bf16");
  EXPECT_EQ(value("bytes"), "8,1024");
  EXPECT_EQ(value("collective-dtypes"), "fp32,bf16");
  EXPECT_EQ(value("placement"), "in");
  EXPECT_EQ(value("backend"), "nccl,mpi");
  EXPECT_EQ(value("check"), "on");
  EXPECT_EQ(value("timeout"), "300");
  EXPECT_EQ(value("samples"), "0");
  EXPECT_EQ(value("max-noise"), "0.005");
  EXPECT_EQ(value("min-sample-time"), "0.002");
  EXPECT_EQ(value("device"), "auto");
}

TEST(RunPlan, HashIsStableForEqualPlansAndBuilds) {
  EXPECT_EQ(planHash(samplePlan(), "0.1.0+abc"), planHash(samplePlan(), "0.1.0+abc"));
}

TEST(RunPlan, HashChangesWithAnySettingOrTheBuild) {
  const std::uint64_t base = planHash(samplePlan(), "0.1.0+abc");
  RunPlan iters = samplePlan();
  iters.measure.max_noise = 0.0051;
  RunPlan sizes = samplePlan();
  sizes.collectives.bytes = {8, 2048};
  EXPECT_NE(planHash(iters, "0.1.0+abc"), base);
  EXPECT_NE(planHash(sizes, "0.1.0+abc"), base);
  EXPECT_NE(planHash(samplePlan(), "0.1.0+abd"), base);
}

}  // namespace
}  // namespace splitstep
