// The step suite's cases, in the order run() reports them, the backend that averages gradients,
// and why a synchronised mode is skipped without it.
#include "suites/StepSpace.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "FakeCommunicator.hpp"

namespace splitstep {
namespace {

using testing::FakeCommunicator;

StepPlan plan() {
  StepPlan p;
  p.models = {&stepModel("mlp"), &stepModel("gpt2")};
  p.precisions = {StepPrecision::Fp32, StepPrecision::Bf16};
  p.modes = {SyncMode::Single, SyncMode::None, SyncMode::Sequential, SyncMode::Overlap};
  return p;
}

TEST(StepSpace, CasesRunByModelPrecisionAndMode) {
  FakeCommunicator mpi("mpi", false);
  const StepSpace space(plan(), {&mpi}, false);
  ASSERT_EQ(space.size(), 16u);
  EXPECT_EQ(StepSpace::name(space.cases()[0]), "mlp fp32 single");
  EXPECT_EQ(StepSpace::name(space.cases()[7]), "mlp bf16 overlap");
  EXPECT_EQ(StepSpace::name(space.cases()[8]), "gpt2 fp32 single");
  // One workload per model and precision serves its four modes.
  const auto workloads = space.workloads();
  ASSERT_EQ(workloads.size(), 4u);
  for (const auto& modes : workloads) EXPECT_EQ(modes.size(), 4u);
  EXPECT_EQ(workloads[3].front().model, &stepModel("gpt2"));
  EXPECT_EQ(workloads[3].front().precision, StepPrecision::Bf16);
}

TEST(StepSpace, GradientsAreAveragedOverNcclOnGpusAndOverHostMpiOnCpus) {
  FakeCommunicator mpi("mpi", false);
  FakeCommunicator nccl("nccl", true);
  EXPECT_EQ(StepSpace(plan(), {&mpi, &nccl}, true).gradientBackend(), &nccl);
  EXPECT_EQ(StepSpace(plan(), {&nccl, &mpi}, false).gradientBackend(), &mpi);
  // With it, every mode runs.
  const StepSpace with_nccl(plan(), {&nccl}, true);
  for (const StepSpace::Case& c : with_nccl.cases()) {
    EXPECT_EQ(with_nccl.whyNot(c), std::nullopt) << StepSpace::name(c);
  }
}

TEST(StepSpace, ASynchronisedModeWithoutItsBackendIsSkipped) {
  FakeCommunicator mpi("mpi", false);
  FakeCommunicator cuda_aware("mpi", true);
  const StepSpace gpu(plan(), {&mpi}, true);
  const StepSpace cpu(plan(), {&cuda_aware}, false);
  EXPECT_EQ(gpu.gradientBackend(), nullptr);
  EXPECT_EQ(cpu.gradientBackend(), nullptr);
  for (std::size_t i = 0; i < 4; ++i) {
    const StepSpace::Case& c = gpu.cases()[i];
    SCOPED_TRACE(StepSpace::name(c));
    if (!syncsGradients(c.mode)) {
      EXPECT_EQ(gpu.whyNot(c), std::nullopt);
      EXPECT_EQ(cpu.whyNot(c), std::nullopt);
      continue;
    }
    EXPECT_EQ(gpu.whyNot(c)->reason,
              "gradient sync on GPUs runs over nccl, which --backend left out");
    EXPECT_EQ(cpu.whyNot(c)->reason, "gradient sync on CPUs needs the mpi backend");
    EXPECT_FALSE(gpu.whyNot(c)->beyond_limit);
  }
}

}  // namespace
}  // namespace splitstep
