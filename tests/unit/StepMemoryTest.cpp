#include "suites/step/StepMemory.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

void setShape(StepPlan& plan, std::initializer_list<std::pair<std::string_view, int>> values) {
  for (const auto& [name, value] : values) plan.shape.set(name, value);
}

TEST(StepMemory, ParameterCountsAreTheModelsOwn) {
  StepPlan plan;
  // The figures of the reference table (PyTorch's own counts of the same architectures).
  EXPECT_DOUBLE_EQ(stepModel("mlp").parameters(plan.shape), 536'936'448);
  // recsys: torch.nn's 8 EmbeddingBag(2^20, 128), Linear(1024, 1024) and Linear(1024, 1) count
  // 1,074,792,449.
  EXPECT_DOUBLE_EQ(stepModel("recsys").parameters(plan.shape), 1'074'792'449);
  // GPT-2 small: transformers' GPT2LMHeadModel counts 124,439,808 (tied head).
  EXPECT_DOUBLE_EQ(stepModel("gpt2").parameters(plan.shape), 124'439'808);
  // Its layout at a drawn shape: wte and wpe, 12d^2 + 13d a block, ln_f; the head is wte.
  setShape(plan, {{"gpt2-layers", 3},
                  {"gpt2-width", 96},
                  {"gpt2-heads", 6},
                  {"gpt2-positions", 40},
                  {"gpt2-seq", 40},
                  {"gpt2-vocab", 1000}});
  EXPECT_DOUBLE_EQ(stepModel("gpt2").parameters(plan.shape),
                   (1000.0 + 40) * 96 + 3 * (12.0 * 96 * 96 + 13 * 96) + 2 * 96);
  // Llama-3.2-1B: transformers' LlamaForCausalLM counts 1,235,814,400 (tied head).
  EXPECT_DOUBLE_EQ(stepModel("llama").parameters(plan.shape), 1'235'814'400);
  // torchvision's resnet50 counts 25,557,032 and wide_resnet50_2 (width_per_group 128)
  // 68,883,240.
  EXPECT_DOUBLE_EQ(stepModel("resnet50").parameters(plan.shape), 25'557'032);
  setShape(plan, {{"resnet50-width", 128}});
  EXPECT_DOUBLE_EQ(stepModel("resnet50").parameters(plan.shape), 68'883'240);
  // ViT-B/16: timm's vit_base_patch16_224 counts 86,567,656.
  EXPECT_DOUBLE_EQ(stepModel("vit-b16").parameters(plan.shape), 86'567'656);
}

TEST(StepMemory, TheReferenceCasesFitAnH200) {
  StepPlan plan;
  plan.modes = {SyncMode::None, SyncMode::Overlap};
  const double h200 = 139.0 * (1ull << 30);
  for (const StepModelDescriptor* model : stepModels()) {
    plan.models = {model};
    plan.precisions = {StepPrecision::Bf16};
    EXPECT_EQ(refuseOversizedSteps(plan, true, 0.9 * h200, "cuda:0"), std::nullopt) << model->name;
  }
  // The reference MLP: 2.15 GB of weights, as much again for gradients and buckets each.
  const StepMemory mlp =
      estimateStepMemory(stepModel("mlp"), StepPrecision::Bf16, StepPlan{}, true, true);
  EXPECT_DOUBLE_EQ(mlp.parameters, 4 * 536'936'448.0);
  EXPECT_DOUBLE_EQ(mlp.gradients, 8 * 536'936'448.0);
  EXPECT_GT(mlp.activations, 0);
}

TEST(StepMemory, StateGrowsWithTheOptimizerAndPrecision) {
  StepPlan plan;
  const double sgd =
      estimateStepMemory(stepModel("mlp"), StepPrecision::Fp32, plan, true, false).optimizer;
  plan.optimizer = StepOptimizer::AdamW;
  plan.optimizer_impl = OptimizerImpl::Fused;
  const StepMemory adamw =
      estimateStepMemory(stepModel("mlp"), StepPrecision::Fp32, plan, true, false);
  EXPECT_EQ(sgd, 0);
  EXPECT_DOUBLE_EQ(adamw.optimizer, 2 * adamw.parameters);
  EXPECT_EQ(adamw.casts, 0);
  EXPECT_GT(estimateStepMemory(stepModel("mlp"), StepPrecision::Bf16, plan, true, false).casts, 0);
}

TEST(StepMemory, AnOversizedShapeIsRefusedNamingWhatSizesIt) {
  StepPlan plan;
  plan.models = {&stepModel("gpt2"), &stepModel("mlp")};
  plan.precisions = {StepPrecision::Bf16};
  plan.modes = {SyncMode::Overlap};
  setShape(plan, {{"mlp-width", 65536}, {"mlp-layers", 64}});
  const auto refusal = refuseOversizedSteps(plan, true, 125.0 * (1ull << 30), "cuda:0 (rank 0)");
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->rfind("--step-models: mlp bf16 needs about ", 0), 0u) << *refusal;
  EXPECT_NE(refusal->find("more than the 125 GiB usable on cuda:0 (rank 0)"), std::string::npos)
      << *refusal;
  EXPECT_NE(refusal->find("lower --mlp-width, --mlp-layers or --mlp-batch"), std::string::npos);
  EXPECT_EQ(refusal->find('\n'), std::string::npos);
}

TEST(StepMemory, LongSequencesCountTheAttentionMatrixOnTheCpuOnly) {
  StepPlan plan;
  setShape(plan, {{"gpt2-positions", 4096}, {"gpt2-seq", 4096}});
  const double gpu =
      estimateStepMemory(stepModel("gpt2"), StepPrecision::Fp32, plan, true, false).activations;
  const double cpu =
      estimateStepMemory(stepModel("gpt2"), StepPrecision::Fp32, plan, false, false).activations;
  // 12 blocks x 16 samples x 12 heads of 4096 x 4096 scores in fp32.
  EXPECT_GT(cpu, gpu + 12.0 * 16 * 12 * 4096 * 4096 * 4);
}

}  // namespace
}  // namespace splitstep
