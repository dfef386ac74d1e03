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
  EXPECT_DOUBLE_EQ(stepModel("transformer").parameters(plan.shape), 86'415'592);
  setShape(plan, {{"transformer-layers", 12},
                  {"transformer-width", 2048},
                  {"transformer-heads", 16},
                  {"transformer-seq", 2048},
                  {"transformer-batch", 8}});
  EXPECT_DOUBLE_EQ(stepModel("transformer").parameters(plan.shape), 610'548'712);
  // GPT-2 small's layout with a 50304-token vocabulary and an untied head, 1024 positions.
  setShape(plan, {{"transformer-layers", 12},
                  {"transformer-width", 768},
                  {"transformer-heads", 12},
                  {"transformer-seq", 1024},
                  {"transformer-batch", 16},
                  {"vocab", 50304}});
  EXPECT_DOUBLE_EQ(stepModel("gpt").parameters(plan.shape),
                   50304.0 * 768 * 2 + 1024.0 * 768 + 12 * (12.0 * 768 * 768 + 13 * 768) + 2 * 768);
  // Llama-3.2-1B: transformers' LlamaForCausalLM counts 1,235,814,400 (tied head).
  EXPECT_DOUBLE_EQ(stepModel("llama").parameters(plan.shape), 1'235'814'400);
  setShape(plan, {{"cnn-blocks", 1}, {"cnn-channels", 8}, {"cnn-image", 16}, {"cnn-batch", 4}});
  EXPECT_DOUBLE_EQ(stepModel("cnn").parameters(plan.shape),
                   27 * 8 + 16 + 18 * 64 + 32 + 8 * 1000 + 1000);
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
  plan.models = {&stepModel("transformer"), &stepModel("mlp")};
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
  plan.shape.set("transformer-seq", 4096);
  const double gpu =
      estimateStepMemory(stepModel("transformer"), StepPrecision::Fp32, plan, true, false)
          .activations;
  const double cpu =
      estimateStepMemory(stepModel("transformer"), StepPrecision::Fp32, plan, false, false)
          .activations;
  EXPECT_GT(cpu, gpu + 12.0 * 128 * 12 * 4096 * 4096 * 4);
}

}  // namespace
}  // namespace splitstep
