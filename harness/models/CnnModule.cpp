// cnn's module (models/Cnn.hpp declares the model).
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>

#include "models/Cnn.hpp"
#include "models/ModuleParts.hpp"

namespace splitstep {
namespace {

using namespace cnn_model;

torch::nn::Conv2d conv3x3(std::int64_t in, std::int64_t out) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).padding(1).bias(false));
}

// ResNet's basic block: relu(x + BN(conv(relu(BN(conv(x)))))).
class ResidualBlock final : public torch::nn::Module {
 public:
  explicit ResidualBlock(std::int64_t channels)
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
  CnnNet(std::int64_t blocks, std::int64_t channels)
      : stem_(register_module("stem", conv3x3(3, channels))),
        bn_(register_module("bn", torch::nn::BatchNorm2d(channels))) {
    for (std::int64_t i = 0; i < blocks; ++i) {
      blocks_.push_back(
          register_module("block" + std::to_string(i), std::make_shared<ResidualBlock>(channels)));
    }
    head_ = register_module("head", torch::nn::Linear(channels, kClassifierClasses));
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

class CnnWorkload final : public ModuleWorkload<CnnNet> {
 public:
  CnnWorkload(const StepShape& shape, c10::Device device)
      : ModuleWorkload(std::make_shared<CnnNet>(shape[kBlocks], shape[kChannels]), device,
                       shape[kBatch]),
        image_(shape[kImage]) {}
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const override {
    return torch::nn::functional::cross_entropy(output.to(at::kFloat), target);
  }
  Batch hostBatch(std::int64_t rows, std::uint64_t seed) const override {
    at::Generator gen = generator(seed);
    at::Tensor input = at::randn({rows, 3, image_, image_}, gen);
    return {input, labels(rows, gen)};
  }

 private:
  std::int64_t image_;
};

const WorkloadRegistration kCnnWorkload(kCnnModel, [](const StepShape& shape, c10::Device device) {
  return std::unique_ptr<Workload>(std::make_unique<CnnWorkload>(shape, device));
});

}  // namespace
}  // namespace splitstep
