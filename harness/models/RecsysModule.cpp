// recsys's module (models/Recsys.hpp declares the model).
#include <ATen/ops/binary_cross_entropy_with_logits.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/relu.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>

#include "models/ModuleParts.hpp"
#include "models/Recsys.hpp"

namespace splitstep {
namespace {

using namespace recsys_model;

// Input: lookups [batch, tables, bag] (int64). Output: one logit per sample, [batch, 1].
class RecsysNet final : public torch::nn::Module {
 public:
  explicit RecsysNet(const StepShape& shape)
      : hidden_(register_module("hidden",
                                torch::nn::Linear(shape[kTables] * shape[kDim], shape[kHidden]))),
        out_(register_module("out", torch::nn::Linear(shape[kHidden], 1))) {
    for (std::int64_t t = 0; t < shape[kTables]; ++t) {
      tables_.push_back(register_module(
          "table" + std::to_string(t),
          torch::nn::EmbeddingBag(
              torch::nn::EmbeddingBagOptions(shape[kRows], shape[kDim]).mode(torch::kSum))));
    }
  }
  at::Tensor forward(const at::Tensor& lookups) {
    std::vector<at::Tensor> bags;
    bags.reserve(tables_.size());
    for (std::size_t t = 0; t < tables_.size(); ++t) {
      bags.push_back(tables_[t](lookups.select(1, static_cast<std::int64_t>(t)).contiguous()));
    }
    return linear(out_, at::relu(linear(hidden_, at::cat(bags, 1))));
  }

 private:
  std::vector<torch::nn::EmbeddingBag> tables_;
  torch::nn::Linear hidden_;
  torch::nn::Linear out_;
};

class RecsysWorkload final : public ModuleWorkload<RecsysNet> {
 public:
  RecsysWorkload(const StepShape& shape, c10::Device device)
      : ModuleWorkload(std::make_shared<RecsysNet>(shape), device, shape[kBatch]),
        tables_(shape[kTables]),
        rows_(shape[kRows]),
        bag_(shape[kBag]) {}
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const override {
    return at::binary_cross_entropy_with_logits(output.to(at::kFloat), target);
  }
  // Lookups drawn uniformly over each table's rows, and labels 0 or 1.
  Batch hostBatch(std::int64_t rows, std::uint64_t seed) const override {
    at::Generator gen = generator(seed);
    at::Tensor lookups = at::randint(0, rows_, {rows, tables_, bag_}, gen, at::kLong);
    return {std::move(lookups), at::randint(0, 2, {rows, 1}, gen, at::kFloat)};
  }

 private:
  std::int64_t tables_;
  std::int64_t rows_;
  std::int64_t bag_;
};

const WorkloadRegistration kRecsysWorkload(kRecsysModel, [](const StepShape& shape,
                                                            c10::Device device) {
  return std::unique_ptr<Workload>(std::make_unique<RecsysWorkload>(shape, device));
});

}  // namespace
}  // namespace splitstep
