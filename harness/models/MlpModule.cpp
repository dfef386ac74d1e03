// mlp's module (models/Mlp.hpp declares the model).
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

#include "models/Mlp.hpp"
#include "models/ModuleParts.hpp"

namespace splitstep {
namespace {

using namespace mlp_model;

// N x (Linear(d, d) + GELU).
class MlpNet final : public torch::nn::Module {
 public:
  MlpNet(std::int64_t layers, std::int64_t width) {
    for (std::int64_t i = 0; i < layers; ++i) {
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

class MlpWorkload final : public ModuleWorkload<MlpNet> {
 public:
  MlpWorkload(const StepShape& shape, c10::Device device)
      : ModuleWorkload(std::make_shared<MlpNet>(shape[kLayers], shape[kWidth]), device,
                       shape[kBatch]),
        width_(shape[kWidth]) {}
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const override {
    return at::mse_loss(output.to(at::kFloat), target);
  }
  Batch hostBatch(std::int64_t rows, std::uint64_t seed) const override {
    at::Generator gen = generator(seed);
    return {at::randn({rows, width_}, gen), at::randn({rows, width_}, gen)};
  }

 private:
  std::int64_t width_;
};

const WorkloadRegistration kMlpWorkload(kMlpModel, [](const StepShape& shape, c10::Device device) {
  return std::unique_ptr<Workload>(std::make_unique<MlpWorkload>(shape, device));
});

}  // namespace
}  // namespace splitstep
