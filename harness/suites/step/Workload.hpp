// A model to train, with its synthetic data and loss: the work of one training step, untimed.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "options/RunPlan.hpp"

namespace splitstep {

// One step's data: the model's input and the loss's target.
struct Batch {
  at::Tensor input;
  at::Tensor target;
};

class Workload {
 public:
  virtual ~Workload() = default;
  // In the order the model registers them, which DDP reverses to fill its buckets.
  virtual std::vector<at::Tensor> parameters() const = 0;
  virtual std::vector<std::string> parameterNames() const = 0;  // "linear0.weight", ...
  virtual at::Tensor forward(const at::Tensor& input) = 0;
  virtual at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const = 0;
  // `rows` samples of synthetic data in host memory; the same seed gives the same data.
  virtual Batch hostBatch(std::int64_t rows, std::uint64_t seed) const = 0;
  // Samples per rank and step, as the plan says.
  virtual std::int64_t batchSize() const = 0;
  // FLOPs of the products and convolutions of one step on `rows` samples: the forward's, and
  // twice that for the backward (gradients of inputs and of weights).
  virtual double flopPerStep(std::int64_t rows) const = 0;
};

// The model `model` shaped by `plan`, its parameters drawn from `seed` (the same on every rank,
// as DDP's initial broadcast makes them) and placed on `device`.
std::unique_ptr<Workload> makeWorkload(StepModel model, const StepPlan& plan, c10::Device device,
                                       std::uint64_t seed);

}  // namespace splitstep
