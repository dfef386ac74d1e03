#include "suites/step/Workload.hpp"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/linear.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/utils.h>

#include <string>

namespace splitstep {
namespace {

constexpr std::int64_t kClasses = 1000;

at::Generator generator(std::uint64_t seed) {
  return at::make_generator<at::CPUGeneratorImpl>(seed);
}

at::Tensor labels(std::int64_t rows, at::Generator& gen) {
  return at::randint(0, kClasses, {rows}, gen, at::kLong);
}

// ATen's linear, which torch.nn.functional.linear calls: on 3-D input it multiplies with the
// bias fused into the product (cuBLASLt's bias epilogue). LibTorch's C++ Linear module instead
// multiplies and then adds the bias in a kernel of its own, under autocast with a cast: 9 ms of
// a 58 ms ViT-B step on an H200 (kernel tables against the PyTorch twin, docs/parity.md).
at::Tensor linear(const torch::nn::Linear& layer, const at::Tensor& x) {
  return at::linear(x, layer->weight, layer->bias);
}

// N x (Linear(d, d) + GELU).
class MlpNet final : public torch::nn::Module {
 public:
  MlpNet(int layers, int width) {
    for (int i = 0; i < layers; ++i) {
      layers_.push_back(
          register_module("linear" + std::to_string(i), torch::nn::Linear(width, width)));
    }
  }
  at::Tensor forward(at::Tensor x) {
    for (auto& layer : layers_) x = at::gelu(linear(layer, x));
    return x;
  }

 private:
  std::vector<torch::nn::Linear> layers_;
};

// Pre-norm block: x + attention(LN(x)), then + MLP(LN(x)) with a 4x hidden width; the
// attention is causal in a decoder (each token sees the ones before it).
class EncoderBlock final : public torch::nn::Module {
 public:
  EncoderBlock(int width, int heads, bool causal = false)
      : heads_(heads),
        causal_(causal),
        norm1_(
            register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})))),
        qkv_(register_module("qkv", torch::nn::Linear(width, 3 * width))),
        proj_(register_module("proj", torch::nn::Linear(width, width))),
        norm2_(
            register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})))),
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
  TransformerNet(int layers, int width, int heads)
      : embed_(register_module("embed", torch::nn::Linear(width, width))) {
    for (int i = 0; i < layers; ++i) {
      blocks_.push_back(register_module("block" + std::to_string(i),
                                        std::make_shared<EncoderBlock>(width, heads)));
    }
    norm_ = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})));
    head_ = register_module("head", torch::nn::Linear(width, kClasses));
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
  GptNet(const TransformerShape& shape)
      : tok_embed_(register_module("tok_embed", torch::nn::Embedding(shape.vocab, shape.width))),
        pos_embed_(register_module("pos_embed", torch::nn::Embedding(shape.seq, shape.width))) {
    for (int i = 0; i < shape.layers; ++i) {
      blocks_.push_back(
          register_module("block" + std::to_string(i),
                          std::make_shared<EncoderBlock>(shape.width, shape.heads, true)));
    }
    norm_ =
        register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({shape.width})));
    head_ = register_module(
        "head", torch::nn::Linear(torch::nn::LinearOptions(shape.width, shape.vocab).bias(false)));
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

torch::nn::Conv2d conv3x3(int in, int out) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).padding(1).bias(false));
}

// ResNet's basic block: relu(x + BN(conv(relu(BN(conv(x)))))).
class ResidualBlock final : public torch::nn::Module {
 public:
  explicit ResidualBlock(int channels)
      : conv1_(register_module("conv1", conv3x3(channels, channels))),
        bn1_(register_module("bn1", torch::nn::BatchNorm2d(channels))),
        conv2_(register_module("conv2", conv3x3(channels, channels))),
        bn2_(register_module("bn2", torch::nn::BatchNorm2d(channels))) {}
  at::Tensor forward(const at::Tensor& x) {
    const at::Tensor y = at::relu(bn1_->forward(conv1_->forward(x)));
    return at::relu(x + bn2_->forward(conv2_->forward(y)));
  }

 private:
  torch::nn::Conv2d conv1_;
  torch::nn::BatchNorm2d bn1_;
  torch::nn::Conv2d conv2_;
  torch::nn::BatchNorm2d bn2_;
};

class CnnNet final : public torch::nn::Module {
 public:
  CnnNet(int blocks, int channels)
      : stem_(register_module("stem", conv3x3(3, channels))),
        bn_(register_module("bn", torch::nn::BatchNorm2d(channels))) {
    for (int i = 0; i < blocks; ++i) {
      blocks_.push_back(
          register_module("block" + std::to_string(i), std::make_shared<ResidualBlock>(channels)));
    }
    head_ = register_module("head", torch::nn::Linear(channels, kClasses));
  }
  at::Tensor forward(const at::Tensor& input) {
    at::Tensor x = at::relu(bn_->forward(stem_->forward(input)));
    for (auto& block : blocks_) x = block->forward(x);
    return linear(head_, x.mean({2, 3}));
  }

 private:
  torch::nn::Conv2d stem_;
  torch::nn::BatchNorm2d bn_;
  std::vector<std::shared_ptr<ResidualBlock>> blocks_;
  torch::nn::Linear head_{nullptr};
};

// The parts every model shares: parameters on the device, seeded construction.
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

class MlpWorkload final : public ModuleWorkload<MlpNet> {
 public:
  MlpWorkload(const MlpShape& shape, c10::Device device)
      : ModuleWorkload(std::make_shared<MlpNet>(shape.layers, shape.width), device, shape.batch),
        shape_(shape) {}
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const override {
    return at::mse_loss(output.to(at::kFloat), target);
  }
  Batch hostBatch(std::int64_t rows, std::uint64_t seed) const override {
    at::Generator gen = generator(seed);
    return {at::randn({rows, shape_.width}, gen), at::randn({rows, shape_.width}, gen)};
  }
  double flopPerStep(std::int64_t rows) const override {
    const double d = shape_.width;
    return 3 * 2.0 * static_cast<double>(rows) * d * d * shape_.layers;
  }

 private:
  MlpShape shape_;
};

class TransformerWorkload final : public ModuleWorkload<TransformerNet> {
 public:
  TransformerWorkload(const TransformerShape& shape, c10::Device device)
      : ModuleWorkload(std::make_shared<TransformerNet>(shape.layers, shape.width, shape.heads),
                       device, shape.batch),
        shape_(shape) {}
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const override {
    return torch::nn::functional::cross_entropy(output.to(at::kFloat), target);
  }
  Batch hostBatch(std::int64_t rows, std::uint64_t seed) const override {
    at::Generator gen = generator(seed);
    at::Tensor input = at::randn({rows, shape_.seq, shape_.width}, gen);
    return {input, labels(rows, gen)};
  }
  double flopPerStep(std::int64_t rows) const override {
    const double d = shape_.width;
    const double s = shape_.seq;
    // FLOPs (two per multiply-add) per token and block: qkv 6d^2, projection 2d^2, MLP 16d^2,
    // the attention's two s x d products 4sd; plus 2d^2 per token for the embedding and
    // 2d x classes per sample for the head.
    const double per_token = shape_.layers * (24 * d * d + 4 * s * d) + 2 * d * d;
    const double forward = static_cast<double>(rows) * (s * per_token + 2 * d * kClasses);
    return 3 * forward;
  }

 private:
  TransformerShape shape_;
};

class GptWorkload final : public ModuleWorkload<GptNet> {
 public:
  GptWorkload(const TransformerShape& shape, c10::Device device)
      : ModuleWorkload(std::make_shared<GptNet>(shape), device, shape.batch), shape_(shape) {}
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const override {
    return torch::nn::functional::cross_entropy(output.to(at::kFloat).reshape({-1, shape_.vocab}),
                                                target.reshape({-1}));
  }
  Batch hostBatch(std::int64_t rows, std::uint64_t seed) const override {
    at::Generator gen = generator(seed);
    at::Tensor tokens = at::randint(0, shape_.vocab, {rows, shape_.seq}, gen, at::kLong);
    at::Tensor next = at::randint(0, shape_.vocab, {rows, shape_.seq}, gen, at::kLong);
    return {tokens, next};
  }
  double flopPerStep(std::int64_t rows) const override {
    const double d = shape_.width;
    const double s = shape_.seq;
    // As the transformer's, with causal attention doing half of the s x d products (flash and
    // cuDNN kernels skip the masked half) and a head of 2d x vocab per token.
    const double per_token = shape_.layers * (24 * d * d + 2 * s * d) + 2 * d * shape_.vocab;
    return 3 * static_cast<double>(rows) * s * per_token;
  }

 private:
  TransformerShape shape_;
};

class CnnWorkload final : public ModuleWorkload<CnnNet> {
 public:
  CnnWorkload(const CnnShape& shape, c10::Device device)
      : ModuleWorkload(std::make_shared<CnnNet>(shape.blocks, shape.channels), device, shape.batch),
        shape_(shape) {}
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const override {
    return torch::nn::functional::cross_entropy(output.to(at::kFloat), target);
  }
  Batch hostBatch(std::int64_t rows, std::uint64_t seed) const override {
    at::Generator gen = generator(seed);
    at::Tensor input = at::randn({rows, 3, shape_.image, shape_.image}, gen);
    return {input, labels(rows, gen)};
  }
  double flopPerStep(std::int64_t rows) const override {
    const double c = shape_.channels;
    const double pixels = static_cast<double>(shape_.image) * shape_.image;
    // 3x3 convolutions: 2 x 9 x in x out FLOPs per output pixel.
    const double per_sample = pixels * 18 * c * (3 + 2 * shape_.blocks * c) + 2 * c * kClasses;
    return 3 * static_cast<double>(rows) * per_sample;
  }

 private:
  CnnShape shape_;
};

}  // namespace

std::unique_ptr<Workload> makeWorkload(StepModel model, const StepPlan& plan, c10::Device device,
                                       std::uint64_t seed) {
  // Modules draw their initial weights from the global CPU generator.
  torch::manual_seed(seed);
  switch (model) {
    case StepModel::Mlp:
      return std::make_unique<MlpWorkload>(plan.mlp, device);
    case StepModel::Transformer:
      return std::make_unique<TransformerWorkload>(plan.transformer, device);
    case StepModel::Cnn:
      return std::make_unique<CnnWorkload>(plan.cnn, device);
    case StepModel::Gpt:
      return std::make_unique<GptWorkload>(plan.transformer, device);
  }
  throw std::invalid_argument("unknown model");
}

}  // namespace splitstep
