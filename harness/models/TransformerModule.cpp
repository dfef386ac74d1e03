// transformer's and gpt's modules (models/Transformer.hpp declares the models).
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/normalization.h>

#include "models/ModuleParts.hpp"
#include "models/Transformer.hpp"

namespace splitstep {
namespace {

using namespace transformer_model;

torch::nn::LayerNorm layerNorm(std::int64_t width) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({width}));
}

// Pre-norm block: x + attention(LN(x)), then + MLP(LN(x)) with a 4x hidden width; the
// attention is causal in a decoder (each token sees the ones before it).
class EncoderBlock final : public torch::nn::Module {
 public:
  EncoderBlock(std::int64_t width, std::int64_t heads, bool causal = false)
      : heads_(heads),
        causal_(causal),
        norm1_(register_module("norm1", layerNorm(width))),
        qkv_(register_module("qkv", torch::nn::Linear(width, 3 * width))),
        proj_(register_module("proj", torch::nn::Linear(width, width))),
        norm2_(register_module("norm2", layerNorm(width))),
        fc1_(register_module("fc1", torch::nn::Linear(width, 4 * width))),
        fc2_(register_module("fc2", torch::nn::Linear(4 * width, width))) {}

  at::Tensor forward(const at::Tensor& x) {
    const std::int64_t b = x.size(0);
    const std::int64_t s = x.size(1);
    const std::int64_t d = x.size(2);
    // (b, s, 3, heads, d/heads) -> 3 x (b, heads, s, d/heads), the layout fused attention takes.
    const at::Tensor qkv = linear(qkv_, norm1_->forward(x))
                               .view({b, s, 3, heads_, d / heads_})
                               .permute({2, 0, 3, 1, 4});
    const at::Tensor attended =
        at::scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], {}, 0.0, causal_);
    const at::Tensor h = x + linear(proj_, attended.transpose(1, 2).reshape({b, s, d}));
    return h + linear(fc2_, at::gelu(linear(fc1_, norm2_->forward(h))));
  }

 private:
  std::int64_t heads_;
  bool causal_;
  torch::nn::LayerNorm norm1_;
  torch::nn::Linear qkv_;
  torch::nn::Linear proj_;
  torch::nn::LayerNorm norm2_;
  torch::nn::Linear fc1_;
  torch::nn::Linear fc2_;
};

// A ViT-style classifier on already-flattened patches: linear embedding, encoder blocks, final
// norm, mean over tokens, linear head.
class TransformerNet final : public torch::nn::Module {
 public:
  explicit TransformerNet(const StepShape& shape)
      : embed_(register_module("embed", torch::nn::Linear(shape[kWidth], shape[kWidth]))) {
    for (std::int64_t i = 0; i < shape[kLayers]; ++i) {
      blocks_.push_back(
          register_module("block" + std::to_string(i),
                          std::make_shared<EncoderBlock>(shape[kWidth], shape[kHeads])));
    }
    norm_ = register_module("norm", layerNorm(shape[kWidth]));
    head_ = register_module("head", torch::nn::Linear(shape[kWidth], kClassifierClasses));
  }
  at::Tensor forward(const at::Tensor& input) {
    at::Tensor x = linear(embed_, input);
    for (auto& block : blocks_) x = block->forward(x);
    return linear(head_, norm_->forward(x).mean(1));
  }

 private:
  torch::nn::Linear embed_;
  std::vector<std::shared_ptr<EncoderBlock>> blocks_;
  torch::nn::LayerNorm norm_{nullptr};
  torch::nn::Linear head_{nullptr};
};

// A GPT-style decoder: token and learned position embeddings, N causal blocks, a final norm and
// a language-model head without bias (next-token cross-entropy on every position).
class GptNet final : public torch::nn::Module {
 public:
  explicit GptNet(const StepShape& shape)
      : tok_embed_(
            register_module("tok_embed", torch::nn::Embedding(shape[kVocab], shape[kWidth]))),
        pos_embed_(register_module("pos_embed", torch::nn::Embedding(shape[kSeq], shape[kWidth]))) {
    for (std::int64_t i = 0; i < shape[kLayers]; ++i) {
      blocks_.push_back(
          register_module("block" + std::to_string(i),
                          std::make_shared<EncoderBlock>(shape[kWidth], shape[kHeads], true)));
    }
    norm_ = register_module("norm", layerNorm(shape[kWidth]));
    head_ = register_module(
        "head",
        torch::nn::Linear(torch::nn::LinearOptions(shape[kWidth], shape[kVocab]).bias(false)));
  }
  at::Tensor forward(const at::Tensor& tokens) {
    const at::Tensor positions = at::arange(tokens.size(1), tokens.options());
    at::Tensor x = tok_embed_->forward(tokens) + pos_embed_->forward(positions);
    for (auto& block : blocks_) x = block->forward(x);
    return linear(head_, norm_->forward(x));
  }

 private:
  torch::nn::Embedding tok_embed_;
  torch::nn::Embedding pos_embed_;
  std::vector<std::shared_ptr<EncoderBlock>> blocks_;
  torch::nn::LayerNorm norm_{nullptr};
  torch::nn::Linear head_{nullptr};
};

class TransformerWorkload final : public ModuleWorkload<TransformerNet> {
 public:
  TransformerWorkload(const StepShape& shape, c10::Device device)
      : ModuleWorkload(std::make_shared<TransformerNet>(shape), device, shape[kBatch]),
        seq_(shape[kSeq]),
        width_(shape[kWidth]) {}
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const override {
    return torch::nn::functional::cross_entropy(output.to(at::kFloat), target);
  }
  Batch hostBatch(std::int64_t rows, std::uint64_t seed) const override {
    at::Generator gen = generator(seed);
    at::Tensor input = at::randn({rows, seq_, width_}, gen);
    return {input, labels(rows, gen)};
  }

 private:
  std::int64_t seq_;
  std::int64_t width_;
};

class GptWorkload final : public ModuleWorkload<GptNet> {
 public:
  GptWorkload(const StepShape& shape, c10::Device device)
      : ModuleWorkload(std::make_shared<GptNet>(shape), device, shape[kBatch]),
        seq_(shape[kSeq]),
        vocab_(shape[kVocab]) {}
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const override {
    return torch::nn::functional::cross_entropy(output.to(at::kFloat).reshape({-1, vocab_}),
                                                target.reshape({-1}));
  }
  Batch hostBatch(std::int64_t rows, std::uint64_t seed) const override {
    at::Generator gen = generator(seed);
    at::Tensor tokens = at::randint(0, vocab_, {rows, seq_}, gen, at::kLong);
    at::Tensor next = at::randint(0, vocab_, {rows, seq_}, gen, at::kLong);
    return {tokens, next};
  }

 private:
  std::int64_t seq_;
  std::int64_t vocab_;
};

const WorkloadRegistration kTransformerWorkload(kTransformerModel, [](const StepShape& shape,
                                                                      c10::Device device) {
  return std::unique_ptr<Workload>(std::make_unique<TransformerWorkload>(shape, device));
});
const WorkloadRegistration kGptWorkload(kGptModel, [](const StepShape& shape, c10::Device device) {
  return std::unique_ptr<Workload>(std::make_unique<GptWorkload>(shape, device));
});

}  // namespace
}  // namespace splitstep
