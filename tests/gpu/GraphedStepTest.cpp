// What a CUDA graph can hold of a step: the reasons a mode is not graphed, one line each.
#include "suites/step/GraphedStep.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

StepRecipe graphable() {
  StepRecipe recipe;
  recipe.precision = StepPrecision::Bf16;
  recipe.optimizer = StepOptimizer::AdamW;
  recipe.optimizer_impl = OptimizerImpl::Foreach;
  recipe.input = InputSource::Pinned;
  return recipe;
}

TEST(GraphedStep, CapturableStepsAreGraphed) {
  EXPECT_EQ(whyNotGraphed(graphable()), std::nullopt);
  StepRecipe recipe = graphable();
  for (StepPrecision precision : {StepPrecision::Fp32, StepPrecision::Bf16}) {
    recipe.precision = precision;
    for (InputSource input : {InputSource::Pinned, InputSource::Device}) {
      recipe.input = input;
      EXPECT_EQ(whyNotGraphed(recipe), std::nullopt);
    }
  }
  recipe.optimizer = StepOptimizer::Sgd;
  recipe.optimizer_impl = OptimizerImpl::Loop;  // no step counts
  EXPECT_EQ(whyNotGraphed(recipe), std::nullopt);
  EXPECT_TRUE(graphedRecipe(graphable()).capturable);
}

TEST(GraphedStep, WhatAGraphCannotHoldIsNamedInOneLine) {
  struct Refused {
    StepRecipe recipe;
    std::string names;  // a phrase of the reason
  };
  std::vector<Refused> refused;
  StepRecipe fp16 = graphable();
  fp16.precision = StepPrecision::Fp16;
  refused.push_back({fp16, "fp16's loss scaler"});
  StepRecipe pageable = graphable();
  pageable.input = InputSource::Pageable;
  refused.push_back({pageable, "pageable memory"});
  StepRecipe host = graphable();
  host.host_work = 1e-3;
  refused.push_back({host, "host work"});
  StepRecipe late = graphable();
  late.delay = 1e-3;
  refused.push_back({late, "host work"});
  StepRecipe loop = graphable();
  loop.optimizer_impl = OptimizerImpl::Loop;
  refused.push_back({loop, "AdamW's loop"});
  for (const Refused& r : refused) {
    const std::optional<std::string> why = whyNotGraphed(r.recipe);
    ASSERT_TRUE(why) << r.names;
    EXPECT_NE(why->find(r.names), std::string::npos) << *why;
    EXPECT_EQ(why->find('\n'), std::string::npos) << *why;
  }
}

}  // namespace
}  // namespace splitstep
