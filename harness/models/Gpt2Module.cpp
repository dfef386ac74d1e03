// gpt2's module (models/Gpt2.hpp declares the model): transformers' GPT2LMHeadModel op for op on
// the training path, as modeling_gpt2.py, pytorch_utils.Conv1D, activations.NewGELUActivation,
// integrations/sdpa_attention.py, cache_utils.DynamicLayer and loss/loss_utils.ForCausalLMLoss
// run it. Modules and parameters carry the library's names in its order, so that its state dict
// loads by name unchanged (analysis/splitstep_analysis/zoo/gpt2.py holds the two to each other).
#include <ATen/ScalarOps.h>
#include <ATen/TensorIndexing.h>
#include <ATen/ops/addmm.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <ATen/ops/tanh.h>
#include <c10/core/GradMode.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/normalization.h>

#include <cmath>
#include <numbers>

#include "models/Gpt2.hpp"
#include "models/ModuleParts.hpp"

namespace splitstep {
namespace {

using namespace gpt2_model;
using at::indexing::Slice;

// GPT2Config's initializer_range and layer_norm_epsilon.
constexpr double kInitStd = 0.02;
constexpr double kNormEps = 1e-5;

// A Python number in an expression (0.5 * x): Python hands it to ATen as a wrapped-number
// tensor, so the op is mul.Tensor, not LibTorch's mul.Scalar.
at::Tensor number(const at::Scalar& value) { return at::native::wrapped_scalar_tensor(value); }

// pytorch_utils.Conv1D: a linear layer whose weight is held [in, out], computed as
// addmm(bias, x.view(-1, in), weight).
class Conv1D final : public torch::nn::Module {
 public:
  Conv1D(std::int64_t nf, std::int64_t nx, double std)
      : nf_(nf),
        weight_(register_parameter("weight", at::empty({nx, nf}))),
        bias_(register_parameter("bias", at::zeros({nf}))) {
    const c10::NoGradGuard no_grad;
    weight_.normal_(0, std);
  }
  at::Tensor forward(const at::Tensor& x) {
    std::vector<std::int64_t> size_out = x.sizes().vec();
    size_out.back() = nf_;
    return at::addmm(bias_, x.view({-1, x.size(-1)}), weight_).view(size_out);
  }

 private:
  std::int64_t nf_;
  at::Tensor weight_;
  at::Tensor bias_;
};

// GPT2PreTrainedModel._init_weights: the residual projections' std is scaled by 1/sqrt(2N).
double residualStd(std::int64_t layers) {
  return kInitStd / std::sqrt(2.0 * static_cast<double>(layers));
}

torch::nn::LayerNorm layerNorm(std::int64_t width) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({width}).eps(kNormEps));
}

torch::nn::Embedding embedding(std::int64_t count, std::int64_t width) {
  torch::nn::Embedding table(count, width);
  const c10::NoGradGuard no_grad;
  table->weight.normal_(0, kInitStd);
  return table;
}

// NewGELUActivation ("gelu_new"), written out as the library writes it, not ATen's fused
// gelu(approximate="tanh"): 0.5 * x * (1.0 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
at::Tensor geluNew(const at::Tensor& x) {
  const at::Tensor half = x * number(0.5);
  const at::Tensor inner =
      (x + at::pow(x, 3.0) * number(0.044715)) * number(std::sqrt(2.0 / std::numbers::pi));
  return half * (at::tanh(inner) + number(1.0));
}

// The cache's update in training: DynamicLayer starts from an empty tensor and concatenates the
// layer's keys (values) onto it, which copies them.
at::Tensor cacheUpdate(const at::Tensor& states) {
  return at::cat({at::empty({0}, states.options()), states}, -2);
}

class GPT2Attention final : public torch::nn::Module {
 public:
  GPT2Attention(const StepShape& shape, double dropout)
      : heads_(shape[kHeads]),
        head_dim_(shape[kWidth] / shape[kHeads]),
        use_cache_(shape[kUseCache] != 0),
        scaling_(std::pow(static_cast<double>(head_dim_), -0.5)),
        c_attn_(register_module(
            "c_attn", std::make_shared<Conv1D>(3 * shape[kWidth], shape[kWidth], kInitStd))),
        c_proj_(register_module("c_proj", std::make_shared<Conv1D>(shape[kWidth], shape[kWidth],
                                                                   residualStd(shape[kLayers])))),
        attn_dropout_(register_module("attn_dropout", torch::nn::Dropout(dropout))),
        resid_dropout_(register_module("resid_dropout", torch::nn::Dropout(dropout))) {}

  at::Tensor forward(const at::Tensor& hidden) {
    const std::vector<at::Tensor> qkv = c_attn_->forward(hidden).split(heads_ * head_dim_, 2);
    const std::int64_t b = hidden.size(0);
    const std::int64_t s = hidden.size(1);
    // The library's order: keys and values, then queries, each (b, heads, s, head_dim).
    at::Tensor key = qkv[1].view({b, s, -1, head_dim_}).transpose(1, 2);
    at::Tensor value = qkv[2].view({b, s, -1, head_dim_}).transpose(1, 2);
    const at::Tensor query = qkv[0].view({b, s, -1, head_dim_}).transpose(1, 2);
    if (use_cache_) {
      key = cacheUpdate(key);
      value = cacheUpdate(value);
    }
    // sdpa_attention_forward: no mask, so causal unless a single query; attn_pdrop in training.
    const double dropout = is_training() ? attn_dropout_->options.p() : 0.0;
    at::Tensor out =
        at::scaled_dot_product_attention(query, key, value, {}, dropout, s > 1, scaling_);
    out = out.reshape({out.size(0), -1, s, value.size(-1)}).transpose(1, 2).contiguous();
    out = out.reshape({b, s, -1}).contiguous();
    return resid_dropout_->forward(c_proj_->forward(out));
  }

 private:
  std::int64_t heads_;
  std::int64_t head_dim_;
  bool use_cache_;
  double scaling_;
  std::shared_ptr<Conv1D> c_attn_;
  std::shared_ptr<Conv1D> c_proj_;
  torch::nn::Dropout attn_dropout_;
  torch::nn::Dropout resid_dropout_;
};

class GPT2MLP final : public torch::nn::Module {
 public:
  GPT2MLP(const StepShape& shape, double dropout)
      : c_fc_(register_module(
            "c_fc", std::make_shared<Conv1D>(4 * shape[kWidth], shape[kWidth], kInitStd))),
        c_proj_(register_module("c_proj", std::make_shared<Conv1D>(shape[kWidth], 4 * shape[kWidth],
                                                                   residualStd(shape[kLayers])))),
        dropout_(register_module("dropout", torch::nn::Dropout(dropout))) {}

  at::Tensor forward(const at::Tensor& hidden) {
    return dropout_->forward(c_proj_->forward(geluNew(c_fc_->forward(hidden))));
  }

 private:
  std::shared_ptr<Conv1D> c_fc_;
  std::shared_ptr<Conv1D> c_proj_;
  torch::nn::Dropout dropout_;
};

class GPT2Block final : public torch::nn::Module {
 public:
  GPT2Block(const StepShape& shape, double dropout)
      : ln_1_(register_module("ln_1", layerNorm(shape[kWidth]))),
        attn_(register_module("attn", std::make_shared<GPT2Attention>(shape, dropout))),
        ln_2_(register_module("ln_2", layerNorm(shape[kWidth]))),
        mlp_(register_module("mlp", std::make_shared<GPT2MLP>(shape, dropout))) {}

  at::Tensor forward(const at::Tensor& x) {
    const at::Tensor hidden = attn_->forward(ln_1_->forward(x)) + x;
    return hidden + mlp_->forward(ln_2_->forward(hidden));
  }

 private:
  torch::nn::LayerNorm ln_1_;
  std::shared_ptr<GPT2Attention> attn_;
  torch::nn::LayerNorm ln_2_;
  std::shared_ptr<GPT2MLP> mlp_;
};

class GPT2Model final : public torch::nn::Module {
 public:
  GPT2Model(const StepShape& shape, double dropout)
      : wte_(register_module("wte", embedding(shape[kVocab], shape[kWidth]))),
        wpe_(register_module("wpe", embedding(shape[kPositions], shape[kWidth]))),
        drop_(register_module("drop", torch::nn::Dropout(dropout))),
        h_(register_module("h", torch::nn::ModuleList())) {
    for (std::int64_t i = 0; i < shape[kLayers]; ++i) {
      h_->push_back(std::make_shared<GPT2Block>(shape, dropout));
    }
    ln_f_ = register_module("ln_f", layerNorm(shape[kWidth]));
  }

  at::Tensor forward(const at::Tensor& tokens) {
    const at::Tensor input_ids = tokens.view({-1, tokens.size(-1)});
    const at::Tensor inputs_embeds = wte_->forward(input_ids);
    // arange + the cache's length (0 at the step's one forward), then a batch dimension.
    const at::Tensor position_ids =
        (at::arange(inputs_embeds.size(1), at::TensorOptions(at::kLong).device(tokens.device())) +
         number(std::int64_t{0}))
            .unsqueeze(0);
    at::Tensor hidden = drop_->forward(inputs_embeds + wpe_->forward(position_ids));
    for (const auto& block : *h_) hidden = block->as<GPT2Block>()->forward(hidden);
    return ln_f_->forward(hidden).view({-1, tokens.size(-1), hidden.size(-1)});
  }

  const at::Tensor& tokenEmbedding() const { return wte_->weight; }  // lm_head's weight too

 private:
  torch::nn::Embedding wte_;
  torch::nn::Embedding wpe_;
  torch::nn::Dropout drop_;
  torch::nn::ModuleList h_;
  torch::nn::LayerNorm ln_f_{nullptr};
};

// lm_head is wte's weight (tied): no parameter of its own, as named_parameters() lists the
// library's model.
class GPT2LMHeadModel final : public torch::nn::Module {
 public:
  explicit GPT2LMHeadModel(const StepShape& shape)
      : transformer_(register_module(
            "transformer",
            std::make_shared<GPT2Model>(shape, static_cast<double>(shape[kDropoutPct]) / 100))) {}

  at::Tensor forward(const at::Tensor& tokens) {
    // slice_logits_to_keep(hidden, 0): every position.
    const at::Tensor hidden = transformer_->forward(tokens).index({Slice(), Slice(0), Slice()});
    return at::linear(hidden, transformer_->tokenEmbedding());
  }

 private:
  std::shared_ptr<GPT2Model> transformer_;
};

const WorkloadRegistration kGpt2Workload(kGpt2Model, [](const StepShape& shape,
                                                        c10::Device device) {
  return std::unique_ptr<Workload>(std::make_unique<CausalLmWorkload<GPT2LMHeadModel>>(
      std::make_shared<GPT2LMHeadModel>(shape), device,
      CausalLmWorkload<GPT2LMHeadModel>::Sizes{shape[kBatch], shape[kSeq], shape[kVocab]}));
});

}  // namespace
}  // namespace splitstep
