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

// A number where the schema takes a tensor (add_.Tensor(num_batches_tracked, 1)) as Python's
// binding makes it: a wrapped-number tensor on the CPU, which type promotion treats as a Python
// scalar and any device accepts. Anything else is returned as it is.
c10::IValue wrappedNumber(const c10::Argument& argument, c10::IValue value);

}  // namespace splitstep
