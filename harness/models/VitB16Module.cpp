// vit-b16's module (models/VitB16.hpp declares the model): timm's VisionTransformer as
// timm/models/vision_transformer.py and timm/layers (PatchEmbed, Attention, Mlp, LayerNorm) run
// it in training, op for op, with the same module and parameter names in the same registration
// order, so that a timm state dict loads by name (docs/models/vit-b16.md).
#include <ATen/ops/cat.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/init.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/normalization.h>

#include "models/ModuleParts.hpp"
#include "models/VitB16.hpp"

namespace splitstep {
namespace {

using namespace vit_b16_model;

// timm.layers.LayerNorm: F.layer_norm with eps 1e-6 (timm's fast-norm path is off by default).
torch::nn::LayerNorm layerNorm(std::int64_t width) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({width}).eps(1e-6));
}

// timm.layers.PatchEmbed: a patch x patch convolution of stride patch, flattened to tokens
// (NCHW -> NLC).
class PatchEmbed final : public torch::nn::Module {
 public:
  PatchEmbed(std::int64_t patch, std::int64_t width)
      : proj_(register_module(
            "proj", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, width, patch).stride(patch)))) {}
  at::Tensor forward(const at::Tensor& images) {
    return proj_->forward(images).flatten(2).transpose(1, 2);
  }

 private:
  torch::nn::Conv2d proj_;
};

// timm.layers.Attention on its fused path: one qkv product, split by reshape, permute and unbind
// (whose backward stacks the three gradients into one tensor), scaled_dot_product_attention at
// its default scale 1/sqrt(head_dim), then the output projection. q_norm, k_norm, norm and the
// dropouts are identities at vit_base_patch16_224's config.
class Attention final : public torch::nn::Module {
 public:
  Attention(std::int64_t width, std::int64_t heads)
      : heads_(heads),
        qkv_(register_module("qkv", torch::nn::Linear(width, 3 * width))),
        proj_(register_module("proj", torch::nn::Linear(width, width))) {}
  at::Tensor forward(const at::Tensor& x) {
    const std::int64_t b = x.size(0);
    const std::int64_t n = x.size(1);
    const std::int64_t c = x.size(2);
    const std::vector<at::Tensor> qkv =
        linear(qkv_, x).reshape({b, n, 3, heads_, c / heads_}).permute({2, 0, 3, 1, 4}).unbind(0);
    const at::Tensor attended = at::scaled_dot_product_attention(qkv[0], qkv[1], qkv[2]);
    return linear(proj_, attended.transpose(1, 2).reshape({b, n, c}));
  }

 private:
  std::int64_t heads_;
  torch::nn::Linear qkv_;
  torch::nn::Linear proj_;
};

// timm.layers.Mlp: fc1, exact GELU (nn.GELU's default), fc2.
class Mlp final : public torch::nn::Module {
 public:
  Mlp(std::int64_t width, std::int64_t hidden)
      : fc1_(register_module("fc1", torch::nn::Linear(width, hidden))),
        fc2_(register_module("fc2", torch::nn::Linear(hidden, width))) {}
  at::Tensor forward(const at::Tensor& x) { return linear(fc2_, at::gelu(linear(fc1_, x))); }

 private:
  torch::nn::Linear fc1_;
  torch::nn::Linear fc2_;
};

// timm's Block: x + attn(norm1(x)), then + mlp(norm2(x)); ls1, ls2 and drop_path are identities
// (no layer scale, drop_path_rate 0).
class Block final : public torch::nn::Module {
 public:
  Block(std::int64_t width, std::int64_t heads)
      : norm1_(register_module("norm1", layerNorm(width))),
        attn_(register_module("attn", std::make_shared<Attention>(width, heads))),
        norm2_(register_module("norm2", layerNorm(width))),
        mlp_(register_module("mlp", std::make_shared<Mlp>(width, kMlpRatio * width))) {}
  at::Tensor forward(const at::Tensor& input) {
    const at::Tensor x = input + attn_->forward(norm1_->forward(input));
    return x + mlp_->forward(norm2_->forward(x));
  }

 private:
  torch::nn::LayerNorm norm1_;
  std::shared_ptr<Attention> attn_;
  torch::nn::LayerNorm norm2_;
  std::shared_ptr<Mlp> mlp_;
};

// timm's VisionTransformer at global_pool "token": patch_embed, _pos_embed (the class token
// concatenated before the position embedding is added: the embedding has an entry for it),
// blocks, norm, and the head on the class token. pos_drop, patch_drop, norm_pre, fc_norm and
// head_drop are identities at this config (dropout rates 0, no pre-norm, fc_norm off for token
// pooling).
class VisionTransformer final : public torch::nn::Module {
 public:
  explicit VisionTransformer(const StepShape& shape)
      : patch_embed_(register_module("patch_embed",
                                     std::make_shared<PatchEmbed>(shape[kPatch], shape[kWidth]))),
        cls_token_(register_parameter("cls_token", at::empty({1, 1, shape[kWidth]}))),
        pos_embed_(register_parameter(
            "pos_embed", at::empty({1, static_cast<std::int64_t>(tokens(shape)), shape[kWidth]}))),
        blocks_(register_module("blocks", torch::nn::ModuleList())) {
    for (std::int64_t i = 0; i < shape[kLayers]; ++i) {
      blocks_->push_back(std::make_shared<Block>(shape[kWidth], shape[kHeads]));
    }
    norm_ = register_module("norm", layerNorm(shape[kWidth]));
    head_ = register_module("head", torch::nn::Linear(shape[kWidth], kClassifierClasses));
    // timm's init of the two parameters without a module of their own (its other weights'
    // init differs from LibTorch's defaults; the step's time does not depend on it).
    torch::nn::init::normal_(pos_embed_, 0, 0.02);
    torch::nn::init::normal_(cls_token_, 0, 1e-6);
  }
  at::Tensor forward(const at::Tensor& images) {
    const at::Tensor patches = patch_embed_->forward(images);
    at::Tensor x = at::cat({cls_token_.expand({patches.size(0), -1, -1}), patches}, 1) + pos_embed_;
    for (const auto& block : *blocks_) x = block->as<Block>()->forward(x);
    return linear(head_, norm_->forward(x).select(1, 0));
  }

 private:
  std::shared_ptr<PatchEmbed> patch_embed_;
  at::Tensor cls_token_;
  at::Tensor pos_embed_;
  torch::nn::ModuleList blocks_;
  torch::nn::LayerNorm norm_{nullptr};
  torch::nn::Linear head_{nullptr};
};

class VitWorkload final : public ModuleWorkload<VisionTransformer> {
 public:
  VitWorkload(const StepShape& shape, c10::Device device)
      : ModuleWorkload(std::make_shared<VisionTransformer>(shape), device, shape[kBatch]),
        image_(shape[kImage]) {}
  // F.cross_entropy on the logits as timm's train.py calls it, inside autocast (which runs its
  // log-softmax in fp32).
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const override {
    return torch::nn::functional::cross_entropy(output, target);
  }
  Batch hostBatch(std::int64_t rows, std::uint64_t seed) const override {
    at::Generator gen = generator(seed);
    at::Tensor images = at::randn({rows, 3, image_, image_}, gen);
    return {images, labels(rows, gen)};
  }

 private:
  std::int64_t image_;
};

const WorkloadRegistration kVitWorkload(kVitB16Model, [](const StepShape& shape,
                                                         c10::Device device) {
  return std::unique_ptr<Workload>(std::make_unique<VitWorkload>(shape, device));
});

}  // namespace
}  // namespace splitstep
