// A model to train, with its synthetic data and loss: the work of one training step, untimed. The
// LibTorch half of a step model (models/StepModel.hpp is the other): each model's module file
// (models/<Name>Module.cpp) registers the maker of its Workload.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/StepModel.hpp"

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
  // The batch maker: `rows` samples of synthetic data in host memory; the same seed gives the
  // same data.
  virtual Batch hostBatch(std::int64_t rows, std::uint64_t seed) const = 0;
  // Samples per rank and step, as the shape says.
  virtual std::int64_t batchSize() const = 0;
};

// While one lives on this thread, models run their forward as under a CUDA graph's capture, as
// transformers does where torch.cuda.graph records it (masking_utils' is_tracing): what the
// library asks the host every forward, it then computes on the device. A graphed step holds one
// over its warm-up steps and capture, and its check over the eager steps it is held against, so
// that both run the same operations.
class CapturedForward {
 public:
  CapturedForward();
  ~CapturedForward();
  CapturedForward(const CapturedForward&) = delete;
  CapturedForward& operator=(const CapturedForward&) = delete;

 private:
  bool was_;
};
bool forwardIsCaptured();

// The module maker: the model shaped by `shape`, its parameters drawn from the global CPU
// generator, placed on `device`.
using WorkloadMaker = std::unique_ptr<Workload> (*)(const StepShape& shape, c10::Device device);

// Registers the maker of the model `model`, once, from its module file (a namespace-scope
// WorkloadRegistration), as suites register themselves.
struct WorkloadRegistration {
  WorkloadRegistration(const StepModelDescriptor& model, WorkloadMaker maker);
};

// The model `model` shaped by `shape`, its parameters drawn from `seed` (the same on every rank,
// as DDP's initial broadcast makes them) and placed on `device`. Throws std::invalid_argument
// for a model without a registered maker.
std::unique_ptr<Workload> makeWorkload(const StepModelDescriptor& model, const StepShape& shape,
                                       c10::Device device, std::uint64_t seed);

// The models of stepModels() that registered no maker: empty in a correct build.
std::vector<std::string> modelsWithoutWorkload();

}  // namespace splitstep
