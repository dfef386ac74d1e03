// How the graph's operations and arguments meet the c10 dispatcher (graph/GraphProgram.cpp).
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

#include <optional>
#include <string>

namespace splitstep {

// The dispatcher's operation for a node's target: "torch.ops.aten.linear.default" is aten::linear
// with the empty overload name. nullopt for a target of no registered operation (a Python
// function such as _operator.mul, an operation LibTorch does not hold).
std::optional<c10::OperatorHandle> findOperation(const std::string& target);

// torch.export's guard of a value's dtype before a cast (`x.float()`), which eager PyTorch never
// runs: it holds the trace's fp32, which autocast changes by design (a bf16 linear's output then
// cast to fp32 for the loss). It computes nothing; the program leaves it out.
inline bool isExportGuard(const std::string& target) {
  return target == "torch.ops.aten._assert_tensor_metadata.default";
}

// A number where the schema takes a tensor (add_.Tensor(num_batches_tracked, 1)) as Python's
// binding makes it: a wrapped-number tensor on the CPU, which type promotion treats as a Python
// scalar and any device accepts. Anything else is returned as it is.
c10::IValue wrappedNumber(const c10::Argument& argument, c10::IValue value);

}  // namespace splitstep
