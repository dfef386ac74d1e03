// What the modules of models/*Module.cpp share: seeded synthetic data, ATen's fused linear, and
// the Workload around a torch::nn::Module.
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/cross_entropy_loss.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/pad.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

#include <memory>
#include <string>
#include <vector>

#include "models/Workload.hpp"

namespace splitstep {

inline at::Generator generator(std::uint64_t seed) {
  return at::make_generator<at::CPUGeneratorImpl>(seed);
}

// Class labels for the classifiers' cross-entropy.
inline at::Tensor labels(std::int64_t rows, at::Generator& gen) {
  return at::randint(0, kClassifierClasses, {rows}, gen, at::kLong);
}

// transformers' ForCausalLMLoss (loss_utils.py), which GPT-2 and Llama share: the logits in fp32,
// the labels shifted left by padding their end with the ignored index (position i is held to
// the token at i + 1, the last to none), and the mean cross-entropy over the tokens that have a
// next one. `target` holds the token ids, as labels=input_ids passes them.
inline at::Tensor causalLmLoss(const at::Tensor& output, const at::Tensor& target,
                               std::int64_t vocab) {
  constexpr std::int64_t kIgnoreIndex = -100;
  const at::Tensor logits = output.to(at::kFloat);
  const at::Tensor shift_labels =
      at::pad(target, {0, 1}, "constant", kIgnoreIndex).slice(-1, 1).contiguous();
  const at::Tensor flat_logits = logits.view({-1, vocab});
  const at::Tensor flat_labels = shift_labels.view({-1}).to(flat_logits.device());
  return at::cross_entropy_loss(flat_logits, flat_labels, {}, at::Reduction::Mean, kIgnoreIndex);
}

// ATen's linear, which torch.nn.functional.linear calls: on 3-D input it multiplies with the
// bias fused into the product (cuBLASLt's bias epilogue). LibTorch's C++ Linear module instead
// multiplies and then adds the bias in a kernel of its own, under autocast with a cast: 9 ms of
// a 58 ms ViT-B step on an H200 (kernel tables against the PyTorch twin, docs/parity.md).
inline at::Tensor linear(const torch::nn::Linear& layer, const at::Tensor& x) {
  return at::linear(x, layer->weight, layer->bias);
}

// The parts every model shares: parameters on the device, the batch size of its shape.
template <typename Net>
class ModuleWorkload : public Workload {
 public:
  ModuleWorkload(std::shared_ptr<Net> net, c10::Device device, std::int64_t batch)
      : net_(std::move(net)), batch_(batch) {
    net_->to(device);
  }
  std::vector<at::Tensor> parameters() const override { return net_->parameters(); }
  std::vector<std::string> parameterNames() const override {
    return net_->named_parameters().keys();
  }
  at::Tensor forward(const at::Tensor& input) override { return net_->forward(input); }
  std::int64_t batchSize() const override { return batch_; }

 protected:
  std::shared_ptr<Net> net_;
  std::int64_t batch_;
};

// A causal language model's step, as GPT-2's and Llama's share it: token ids in, logits out,
// transformers' ForCausalLMLoss, and the token ids as their own labels (labels = input_ids).
// `Net` is built from the shape; the shape's own options give the batch, tokens per sample and
// vocabulary.
template <typename Net>
class CausalLmWorkload final : public ModuleWorkload<Net> {
 public:
  struct Sizes {
    std::int64_t batch;
    std::int64_t seq;
    std::int64_t vocab;
  };
  CausalLmWorkload(std::shared_ptr<Net> net, c10::Device device, Sizes sizes)
      : ModuleWorkload<Net>(std::move(net), device, sizes.batch),
        seq_(sizes.seq),
        vocab_(sizes.vocab) {}

  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const override {
    return causalLmLoss(output, target, vocab_);
  }

  Batch hostBatch(std::int64_t rows, std::uint64_t seed) const override {
    at::Generator gen = generator(seed);
    const at::Tensor tokens = at::randint(0, vocab_, {rows, seq_}, gen, at::kLong);
    return {tokens, tokens};
  }

 private:
  std::int64_t seq_;
  std::int64_t vocab_;
};

}  // namespace splitstep
