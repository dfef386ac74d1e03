#include "suites/step/Optimizer.hpp"

#include <ATen/core/grad_mode.h>
#include <ATen/ops/_foreach_add.h>
#include <ATen/ops/_foreach_addcdiv.h>
#include <ATen/ops/_foreach_addcmul.h>
#include <ATen/ops/_foreach_div.h>
#include <ATen/ops/_foreach_lerp.h>
#include <ATen/ops/_foreach_mul.h>
#include <ATen/ops/_foreach_neg.h>
#include <ATen/ops/_foreach_pow.h>
#include <ATen/ops/_foreach_reciprocal.h>
#include <ATen/ops/_foreach_sqrt.h>
#include <ATen/ops/_foreach_sub.h>
#include <ATen/ops/_fused_adamw.h>
#include <ATen/ops/_fused_sgd.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>

#include <cmath>
#include <stdexcept>

namespace splitstep {
namespace {

std::vector<at::Tensor> gradients(const std::vector<at::Tensor>& parameters) {
  std::vector<at::Tensor> grads;
  grads.reserve(parameters.size());
  for (const at::Tensor& p : parameters) grads.push_back(p.grad());
  return grads;
}

std::vector<at::Tensor> zerosLike(const std::vector<at::Tensor>& parameters) {
  std::vector<at::Tensor> state;
  state.reserve(parameters.size());
  for (const at::Tensor& p : parameters) state.push_back(at::zeros_like(p));
  return state;
}

class Sgd final : public Optimizer {
 public:
  Sgd(std::vector<at::Tensor> parameters, const OptimizerSettings& s)
      : parameters_(std::move(parameters)), s_(s) {}

  void step() override {
    // Parameters change in place outside autograd, as torch.optim steps under no_grad.
    at::NoGradGuard no_grad;
    std::vector<at::Tensor> grads = gradients(parameters_);
    switch (s_.impl) {
      case OptimizerImpl::Loop:
        perTensor(grads);
        break;
      case OptimizerImpl::Foreach:
        multiTensor(grads);
        break;
      case OptimizerImpl::Fused:
        fused(grads);
        break;
    }
    first_ = false;
  }

 private:
  // _single_tensor_sgd.
  void perTensor(std::vector<at::Tensor>& grads) {
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
      at::Tensor grad = grads[i];
      if (s_.weight_decay != 0) grad = grad.add(parameters_[i], s_.weight_decay);
      if (s_.momentum != 0) {
        if (first_) {
          buffers_.push_back(grad.clone().detach());
        } else {
          buffers_[i].mul_(s_.momentum).add_(grad);
        }
        grad = buffers_[i];
      }
      parameters_[i].add_(grad, -s_.learning_rate);
    }
  }

  // _multi_tensor_sgd.
  void multiTensor(std::vector<at::Tensor>& grads) {
    if (s_.weight_decay != 0) grads = at::_foreach_add(grads, parameters_, s_.weight_decay);
    if (s_.momentum != 0) {
      if (first_) {
        for (const at::Tensor& g : grads) buffers_.push_back(g.clone().detach());
      } else {
        at::_foreach_mul_(buffers_, s_.momentum);
        at::_foreach_add_(buffers_, grads);
      }
      grads = buffers_;
    }
    at::_foreach_add_(parameters_, grads, -s_.learning_rate);
  }

  // _fused_sgd: one kernel over every tensor; no momentum buffers without momentum.
  void fused(const std::vector<at::Tensor>& grads) {
    if (s_.momentum != 0 && first_) buffers_ = zerosLike(parameters_);
    at::_fused_sgd_(parameters_, grads, buffers_, s_.weight_decay, s_.momentum, s_.learning_rate,
                    /*dampening=*/0, /*nesterov=*/false, /*maximize=*/false, first_);
  }

  std::vector<at::Tensor> parameters_;
  OptimizerSettings s_;
  std::vector<at::Tensor> buffers_;  // momentum, created on the first step
  bool first_ = true;
};

class AdamW final : public Optimizer {
 public:
  AdamW(std::vector<at::Tensor> parameters, const OptimizerSettings& s)
      : parameters_(std::move(parameters)),
        s_(s),
        exp_avgs_(zerosLike(parameters_)),
        exp_avg_sqs_(zerosLike(parameters_)) {
    if (s_.impl == OptimizerImpl::Fused || s_.capturable) {
      // The fused kernel, and the capturable foreach path, read each step count from the device.
      for (const at::Tensor& p : parameters_) {
        device_steps_.push_back(at::zeros({}, p.options().dtype(at::kFloat)));
      }
    }
  }

  void step() override {
    // Parameters change in place outside autograd, as torch.optim steps under no_grad.
    at::NoGradGuard no_grad;
    const std::vector<at::Tensor> grads = gradients(parameters_);
    ++steps_;
    switch (s_.impl) {
      case OptimizerImpl::Loop:
        perTensor(grads);
        break;
      case OptimizerImpl::Foreach:
        if (s_.capturable) {
          capturableMultiTensor(grads);
        } else {
          multiTensor(grads);
        }
        break;
      case OptimizerImpl::Fused:
        at::_foreach_add_(device_steps_, 1);
        at::_fused_adamw_(parameters_, grads, exp_avgs_, exp_avg_sqs_, /*max_exp_avg_sqs=*/{},
                          device_steps_, s_.learning_rate, s_.beta1, s_.beta2, s_.weight_decay,
                          s_.eps, /*amsgrad=*/false, /*maximize=*/false);
        break;
    }
  }

 private:
  double biasCorrection1() const { return 1 - std::pow(s_.beta1, steps_); }
  double biasCorrection2Sqrt() const { return std::sqrt(1 - std::pow(s_.beta2, steps_)); }

  // _single_tensor_adam with decoupled weight decay.
  void perTensor(const std::vector<at::Tensor>& grads) {
    const double step_size = s_.learning_rate / biasCorrection1();
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
      if (s_.weight_decay != 0) parameters_[i].mul_(1 - s_.learning_rate * s_.weight_decay);
      exp_avgs_[i].lerp_(grads[i], 1 - s_.beta1);
      exp_avg_sqs_[i].mul_(s_.beta2).addcmul_(grads[i], grads[i], 1 - s_.beta2);
      const at::Tensor denom = exp_avg_sqs_[i].sqrt().div_(biasCorrection2Sqrt()).add_(s_.eps);
      parameters_[i].addcdiv_(exp_avgs_[i], denom, -step_size);
    }
  }

  // _multi_tensor_adam with decoupled weight decay. Its step counts live on the CPU, so the bias
  // corrections are one number per tensor, and it passes them as lists: the ScalarList kernels
  // (not the single-Scalar ones, a kernel of another name) divide and update.
  void multiTensor(const std::vector<at::Tensor>& grads) {
    if (s_.weight_decay != 0) {
      at::_foreach_mul_(parameters_, 1 - s_.learning_rate * s_.weight_decay);
    }
    at::_foreach_lerp_(exp_avgs_, grads, 1 - s_.beta1);
    at::_foreach_mul_(exp_avg_sqs_, s_.beta2);
    at::_foreach_addcmul_(exp_avg_sqs_, grads, grads, 1 - s_.beta2);
    std::vector<at::Tensor> denom = at::_foreach_sqrt(exp_avg_sqs_);
    const std::vector<at::Scalar> bias_correction2_sqrt(parameters_.size(), biasCorrection2Sqrt());
    at::_foreach_div_(denom, bias_correction2_sqrt);
    at::_foreach_add_(denom, s_.eps);
    const std::vector<at::Scalar> step_size(parameters_.size(),
                                            -s_.learning_rate / biasCorrection1());
    at::_foreach_addcdiv_(parameters_, exp_avgs_, denom, step_size);
  }

  // _multi_tensor_adam with capturable=True (torch 2.11): the bias corrections are computed on
  // the device from the step counts there, as tensors, so that no number leaves the host.
  void capturableMultiTensor(const std::vector<at::Tensor>& grads) {
    at::_foreach_add_(device_steps_, 1);
    if (s_.weight_decay != 0) {
      at::_foreach_mul_(parameters_, 1 - s_.learning_rate * s_.weight_decay);
    }
    at::_foreach_lerp_(exp_avgs_, grads, 1 - s_.beta1);
    at::_foreach_mul_(exp_avg_sqs_, s_.beta2);
    at::_foreach_addcmul_(exp_avg_sqs_, grads, grads, 1 - s_.beta2);
    std::vector<at::Tensor> step_size = at::_foreach_pow(s_.beta1, device_steps_);
    std::vector<at::Tensor> bias_correction2_sqrt = at::_foreach_pow(s_.beta2, device_steps_);
    at::_foreach_sub_(step_size, 1);
    at::_foreach_sub_(bias_correction2_sqrt, 1);
    at::_foreach_neg_(bias_correction2_sqrt);
    at::_foreach_div_(step_size, s_.learning_rate);
    at::_foreach_reciprocal_(step_size);  // -lr / (1 - beta1^t)
    at::_foreach_sqrt_(bias_correction2_sqrt);
    std::vector<at::Tensor> denom = at::_foreach_sqrt(exp_avg_sqs_);
    at::_foreach_div_(denom, bias_correction2_sqrt);
    at::_foreach_add_(denom, s_.eps);
    at::_foreach_div_(denom, step_size);
    at::_foreach_addcdiv_(parameters_, exp_avgs_, denom);
  }

  std::vector<at::Tensor> parameters_;
  OptimizerSettings s_;
  std::vector<at::Tensor> exp_avgs_;
  std::vector<at::Tensor> exp_avg_sqs_;
  std::vector<at::Tensor> device_steps_;  // fused and capturable only
  int steps_ = 0;
};

}  // namespace

OptimizerSettings optimizerSettings(StepOptimizer kind, OptimizerImpl impl, double learning_rate,
                                    double momentum) {
  OptimizerSettings settings;
  settings.kind = kind;
  settings.impl = impl;
  settings.learning_rate = learning_rate;
  settings.momentum = momentum;
  settings.weight_decay = kind == StepOptimizer::AdamW ? 1e-2 : 0;
  return settings;
}

std::unique_ptr<Optimizer> makeOptimizer(std::vector<at::Tensor> parameters,
                                         const OptimizerSettings& settings) {
  if (settings.kind == StepOptimizer::AdamW) {
    if (settings.capturable && settings.impl == OptimizerImpl::Loop) {
      throw std::invalid_argument("AdamW's loop keeps its step counts on the host: not capturable");
    }
    return std::make_unique<AdamW>(std::move(parameters), settings);
  }
  return std::make_unique<Sgd>(std::move(parameters), settings);
}

}  // namespace splitstep
