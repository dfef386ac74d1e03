#include "graph/GraphOperations.hpp"

#include <ATen/ScalarOps.h>

#include <string_view>

namespace splitstep {

std::optional<c10::OperatorHandle> findOperation(const std::string& target) {
  constexpr std::string_view kOpsPrefix = "torch.ops.";
  if (target.rfind(kOpsPrefix, 0) != 0) return std::nullopt;
  const std::string rest = target.substr(kOpsPrefix.size());
  const auto first = rest.find('.');
  const auto last = rest.rfind('.');
  if (first == std::string::npos || first == last) return std::nullopt;
  const std::string name = rest.substr(0, first) + "::" + rest.substr(first + 1, last - first - 1);
  std::string overload = rest.substr(last + 1);
  if (overload == "default") overload.clear();
  return c10::Dispatcher::singleton().findSchema({name, overload});
}

c10::IValue wrappedNumber(const c10::Argument& argument, c10::IValue value) {
  if (argument.type()->kind() != c10::TypeKind::TensorType ||
      !(value.isInt() || value.isDouble() || value.isBool())) {
    return value;
  }
  at::Tensor wrapped = c10::scalar_to_tensor(value.toScalar());
  wrapped.unsafeGetTensorImpl()->set_wrapped_number(true);
  return wrapped;
}

}  // namespace splitstep
