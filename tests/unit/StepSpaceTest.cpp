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
  EXPECT_EQ(space.name(space.cases()[0]), "mlp fp32 single");
  EXPECT_EQ(space.name(space.cases()[7]), "mlp bf16 overlap");
  EXPECT_EQ(space.name(space.cases()[8]), "gpt2 fp32 single");
  // One workload per model and precision serves its four modes.
  const auto workloads = space.workloads();
  ASSERT_EQ(workloads.size(), 4u);
  for (const auto& modes : workloads) EXPECT_EQ(modes.size(), 4u);
  EXPECT_EQ(workloads[3].front().model, &stepModel("gpt2"));
  EXPECT_EQ(workloads[3].front().precision, StepPrecision::Bf16);
}

// A case is named after its model's shape: the library's name where it has one, else the
// architecture's options that differ from the model's own. Batch and tokens are no architecture.
TEST(StepSpace, ACaseIsNamedByTheLibraryNameOfItsShapeOrByItsShape) {
  FakeCommunicator mpi("mpi", false);
  StepPlan p;
  p.models = {&stepModel("vit-b16"), &stepModel("gpt2"), &stepModel("resnet50"),
              &stepModel("llama"), &stepModel("mlp")};
  p.precisions = {StepPrecision::Bf16};
  p.modes = {SyncMode::Single};
  const auto names = [&] {
    const StepSpace space(p, {&mpi}, false);
    std::vector<std::string> all;
    for (const StepSpace::Case& c : space.cases()) all.push_back(space.name(c));
    return all;
  };
  p.shape.set("vit-batch", 7);
  p.shape.set("gpt2-seq", 64);
  EXPECT_EQ(names(), (std::vector<std::string>{"vit-b16 bf16 single", "gpt2 bf16 single",
                                               "resnet50 bf16 single", "llama bf16 single",
                                               "mlp bf16 single"}));
  p.shape.set("vit-layers", 24);
  p.shape.set("vit-width", 1024);
  p.shape.set("vit-heads", 16);
  p.shape.set("gpt2-layers", 24);
  p.shape.set("gpt2-width", 1024);
  p.shape.set("gpt2-heads", 16);
  p.shape.set("resnet50-width", 128);
  p.shape.set("llama-layers", 28);
  p.shape.set("llama-hidden", 3072);
  p.shape.set("llama-heads", 24);
  p.shape.set("mlp-width", 64);
  EXPECT_EQ(names(), (std::vector<std::string>{"vit-l16 bf16 single", "gpt2-medium bf16 single",
                                               "wide-resnet50-2 bf16 single",
                                               "llama-3.2-3b bf16 single", "mlp bf16 single"}));
  p.shape.set("vit-patch", 8);
  p.shape.set("gpt2-heads", 8);
  EXPECT_EQ(names()[0], "vit-b16 (layers 24, width 1024, heads 16, patch 8) bf16 single");
  EXPECT_EQ(names()[1], "gpt2 (layers 24, width 1024, heads 8) bf16 single");
}

TEST(StepSpace, GradientsAreAveragedOverNcclOnGpusAndOverHostMpiOnCpus) {
  FakeCommunicator mpi("mpi", false);
  FakeCommunicator nccl("nccl", true);
  EXPECT_EQ(StepSpace(plan(), {&mpi, &nccl}, true).gradientBackend(), &nccl);
  EXPECT_EQ(StepSpace(plan(), {&nccl, &mpi}, false).gradientBackend(), &mpi);
  // With it, every mode runs.
  const StepSpace with_nccl(plan(), {&nccl}, true);
  for (const StepSpace::Case& c : with_nccl.cases()) {
    EXPECT_EQ(with_nccl.whyNot(c), std::nullopt) << with_nccl.name(c);
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
    SCOPED_TRACE(gpu.name(c));
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
