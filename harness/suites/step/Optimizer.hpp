// The optimizer step as PyTorch runs it, in its three implementations (torch.optim's
// foreach=False, foreach=True, fused=True), built on ATen's own kernels: per-tensor ops in a
// loop, the _foreach_* ops, or one _fused_adamw_ / _fused_sgd_ call. The arithmetic follows
// torch.optim's _single_tensor_*, _multi_tensor_* and _fused_* paths, so that each phase is
// comparable with the PyTorch step a user runs.
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <vector>

#include "options/StepPlan.hpp"

namespace splitstep {

struct OptimizerSettings {
  StepOptimizer kind = StepOptimizer::Sgd;
  OptimizerImpl impl = OptimizerImpl::Foreach;
  double learning_rate = 0.01;
  double momentum = 0;  // SGD
  // torch.optim's defaults: AdamW decays weights by 1e-2 (decoupled), SGD not at all.
  double weight_decay = 0;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  // AdamW's step counts on the device, as torch.optim's capturable=True keeps them, so that a
  // CUDA graph's replays advance them (foreach and fused; the loop is not offered capturable).
  bool capturable = false;
};

// The defaults of torch.optim for `kind`, with `impl`, learning rate and momentum.
OptimizerSettings optimizerSettings(StepOptimizer kind, OptimizerImpl impl, double learning_rate,
                                    double momentum);

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // One step of every parameter whose gradient is defined (all of them, in a training step).
  virtual void step() = 0;
};

// State (moments, momentum buffers, step counts) lives beside `parameters`, on their device.
std::unique_ptr<Optimizer> makeOptimizer(std::vector<at::Tensor> parameters,
                                         const OptimizerSettings& settings);

}  // namespace splitstep
