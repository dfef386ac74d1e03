// The graph of an exported archive (graph/GraphArchive.hpp), run node by node: each ATen
// operation called through the c10 dispatcher with the arguments the graph records, as eager
// PyTorch calls it, so that autograd records the same backward and autocast casts the same
// operations. The parameters are leaf tensors the program owns, in registration order, for the
// step's buckets, sync, check and optimizers to work on as on a module's.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/GraphArchive.hpp"

namespace splitstep {

class GraphProgram {
 public:
  // The graph of `archive` with its weights on `device`. Throws GraphArchiveError, naming them,
  // for operations or arguments it cannot run: every one of them, before anything runs.
  GraphProgram(const GraphArchive& archive, c10::Device device);
  ~GraphProgram();
  GraphProgram(GraphProgram&&) noexcept;
  GraphProgram& operator=(GraphProgram&&) noexcept;

  // Leaves that require grad, in the order the model registered them.
  const std::vector<at::Tensor>& parameters() const { return parameters_; }
  // Their names in the user's model ("0.weight"), without the exporter's "model." prefix.
  const std::vector<std::string>& parameterNames() const { return parameter_names_; }
  // The buffers by their names in the user's model: BatchNorm's running statistics, which the
  // graph's in-place operations update as eager's do.
  const std::map<std::string, at::Tensor>& buffers() const { return buffers_; }
  const std::vector<BatchTensorSpec>& batch() const { return batch_; }
  // The loss of `batch`, its tensors in the order of batch(), on the program's device. Throws
  // std::invalid_argument for a batch of other shapes or dtypes. Where `sample_losses` is given,
  // it receives the per-sample losses the loss averaged, detached, if the graph's loss is their
  // mean (the standard losses of `splitstep-analysis export`), or an undefined tensor; a step
  // asks for none.
  at::Tensor loss(const std::vector<at::Tensor>& batch, at::Tensor* sample_losses = nullptr);

  struct Plan;  // the steps the graph's nodes became (GraphProgram.cpp)

 private:
  std::unique_ptr<Plan> plan_;
  std::vector<at::Tensor> parameters_;
  std::vector<std::string> parameter_names_;
  std::map<std::string, at::Tensor> buffers_;
  std::vector<BatchTensorSpec> batch_;
};

}  // namespace splitstep
