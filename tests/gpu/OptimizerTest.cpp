// The three optimizer implementations against each other and against torch.optim's formulas.
#include "suites/step/Optimizer.hpp"

#include <ATen/ops/allclose.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/randn_like.h>
#include <ATen/ops/zeros.h>
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "GpuSkip.hpp"

namespace splitstep {
namespace {

// A few tensors of different shapes, with gradients, on `device`.
std::vector<at::Tensor> parametersWithGradients(c10::Device device, std::uint64_t seed) {
  at::manual_seed(seed);
  std::vector<at::Tensor> parameters;
  for (std::int64_t size : {7, 64, 1000}) {
    at::Tensor p = at::randn({size}, at::TensorOptions().device(device)).set_requires_grad(true);
    p.mutable_grad() = at::randn({size}, at::TensorOptions().device(device));
    parameters.push_back(p);
  }
  return parameters;
}

// Parameters after `steps` steps of `kind` with `impl`, the gradients redrawn before each.
std::vector<at::Tensor> stepped(StepOptimizer kind, OptimizerImpl impl, double momentum,
                                c10::Device device, int steps, bool capturable = false) {
  std::vector<at::Tensor> parameters = parametersWithGradients(device, 7);
  OptimizerSettings settings = optimizerSettings(kind, impl, 1e-2, momentum);
  settings.capturable = capturable;
  const auto optimizer = makeOptimizer(parameters, settings);
  for (int s = 0; s < steps; ++s) {
    at::manual_seed(100 + static_cast<std::uint64_t>(s));
    for (at::Tensor& p : parameters) p.mutable_grad() = at::randn_like(p);
    optimizer->step();
  }
  std::vector<at::Tensor> values;
  for (const at::Tensor& p : parameters) values.push_back(p.detach().cpu());
  return values;
}

void expectImplementationsAgree(c10::Device device) {
  struct Case {
    StepOptimizer kind;
    double momentum;
  };
  for (const Case c : {Case{StepOptimizer::Sgd, 0}, Case{StepOptimizer::Sgd, 0.9},
                       Case{StepOptimizer::AdamW, 0}}) {
    SCOPED_TRACE(std::string(toString(c.kind)) + " momentum " + std::to_string(c.momentum));
    const auto loop = stepped(c.kind, OptimizerImpl::Loop, c.momentum, device, 3);
    const auto initial = parametersWithGradients(device, 7);
    for (OptimizerImpl impl : {OptimizerImpl::Foreach, OptimizerImpl::Fused}) {
      SCOPED_TRACE(std::string(toString(impl)));
      const auto other = stepped(c.kind, impl, c.momentum, device, 3);
      for (std::size_t i = 0; i < loop.size(); ++i) {
        EXPECT_TRUE(at::allclose(other[i], loop[i], 1e-5, 1e-6)) << "tensor " << i;
        // The step moved the parameters: agreement is not two no-ops.
        EXPECT_FALSE(at::allclose(loop[i], initial[i].detach().cpu()));
      }
    }
  }
}

TEST(OptimizerOnCpu, LoopForeachAndFusedAgree) { expectImplementationsAgree(c10::Device("cpu")); }

// torch.optim's capturable=True path computes the bias corrections on the device from device
// step counts; over several steps it must reach what the host's step counts give.
void expectCapturableAdamWAgrees(c10::Device device) {
  const auto loop = stepped(StepOptimizer::AdamW, OptimizerImpl::Loop, 0, device, 5);
  const auto initial = parametersWithGradients(device, 7);
  for (OptimizerImpl impl : {OptimizerImpl::Foreach, OptimizerImpl::Fused}) {
    SCOPED_TRACE(std::string(toString(impl)));
    const auto capturable = stepped(StepOptimizer::AdamW, impl, 0, device, 5, true);
    for (std::size_t i = 0; i < loop.size(); ++i) {
      EXPECT_TRUE(at::allclose(capturable[i], loop[i], 1e-5, 1e-6)) << "tensor " << i;
      EXPECT_FALSE(at::allclose(capturable[i], initial[i].detach().cpu()));
    }
  }
  EXPECT_THROW(stepped(StepOptimizer::AdamW, OptimizerImpl::Loop, 0, device, 1, true),
               std::invalid_argument);
}

TEST(OptimizerOnCpu, CapturableAdamWAgreesWithTheHostsStepCounts) {
  expectCapturableAdamWAgrees(c10::Device("cpu"));
}

TEST(OptimizerOnGpu, CapturableAdamWAgreesWithTheHostsStepCounts) {
  SPLITSTEP_REQUIRE_GPU();
  expectCapturableAdamWAgrees(c10::Device("cuda:0"));
}

TEST(OptimizerOnGpu, LoopForeachAndFusedAgree) {
  SPLITSTEP_REQUIRE_GPU();
  expectImplementationsAgree(c10::Device("cuda:0"));
}

TEST(OptimizerOnCpu, AdamWFollowsTorchOptimsFirstStep) {
  // One element: after the first step the moments are (1-b1) g and (1-b2) g^2, and with the
  // bias corrections the update is lr * g / (|g| + eps), after a decay of lr * wd.
  for (OptimizerImpl impl : {OptimizerImpl::Loop, OptimizerImpl::Foreach, OptimizerImpl::Fused}) {
    at::Tensor p = at::full({1}, 2.0).set_requires_grad(true);
    p.mutable_grad() = at::full({1}, -0.5);
    const OptimizerSettings s = optimizerSettings(StepOptimizer::AdamW, impl, 0.1, 0);
    makeOptimizer({p}, s)->step();
    const double expected = 2.0 * (1 - 0.1 * s.weight_decay) + 0.1 * 0.5 / (0.5 + s.eps);
    EXPECT_NEAR(p.item<double>(), expected, 1e-6) << toString(impl);
    EXPECT_DOUBLE_EQ(s.weight_decay, 1e-2);  // torch.optim.AdamW's default
  }
}

TEST(OptimizerOnCpu, SgdMomentumKeepsItsBuffer) {
  for (OptimizerImpl impl : {OptimizerImpl::Loop, OptimizerImpl::Foreach, OptimizerImpl::Fused}) {
    at::Tensor p = at::zeros({1}).set_requires_grad(true);
    const auto optimizer =
        makeOptimizer({p}, optimizerSettings(StepOptimizer::Sgd, impl, 1.0, 0.5));
    p.mutable_grad() = at::ones({1});
    optimizer->step();  // buffer 1, p = -1
    optimizer->step();  // buffer 0.5 * 1 + 1 = 1.5, p = -2.5
    EXPECT_NEAR(p.item<double>(), -2.5, 1e-6) << toString(impl);
  }
}

}  // namespace
}  // namespace splitstep
