#include "graph/BatchFile.hpp"

#include <ATen/ops/aminmax.h>
#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/serialize.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace splitstep {
namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw GraphArchiveError(fmt::format("{}: {}", path, why));
}

// As PyTorch names them ("float32", "int64"), which is how the archive records them.
std::string dtypeName(at::ScalarType dtype) { return c10::getDtypeNames(dtype).first; }

std::string shapeText(at::IntArrayRef shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

c10::IValue unpickled(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) refuse(path, "no such file");
  std::ifstream file(path, std::ios::binary);
  if (!file) refuse(path, "cannot be read");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                                std::istreambuf_iterator<char>());
  try {
    return torch::pickle_load(bytes);
  } catch (const c10::Error& error) {
    // PyTorchStreamReader's first sentence says why; the rest is advice on checkpoints.
    const std::string& why = error.msg();
    refuse(path, "not a file of torch.save (" + why.substr(0, why.find_first_of(".\n")) + ")");
  }
}

// The file's top-level value as a list of values: a tuple's or a list's elements.
std::vector<c10::IValue> elements(const std::string& path, const c10::IValue& value) {
  if (value.isTuple()) return value.toTupleRef().elements().vec();
  if (value.isList()) return value.toListRef().vec();
  refuse(path, fmt::format("holds a {}, not a tuple or list of tensors", value.tagKind()));
}

void check(const std::string& path, std::size_t i, const at::Tensor& tensor,
           const BatchTensorSpec& spec) {
  const std::string which = fmt::format("tensor {} ({})", i, spec.name);
  if (tensor.layout() != at::kStrided) refuse(path, which + " is not a dense tensor");
  if (tensor.sizes() != at::IntArrayRef(spec.shape) || tensor.scalar_type() != spec.dtype) {
    refuse(path, fmt::format("{} has shape {} and dtype {}, the archive records {} {}", which,
                             shapeText(tensor.sizes()), dtypeName(tensor.scalar_type()),
                             shapeText(spec.shape), dtypeName(spec.dtype)));
  }
  // The archive's range is what its example held; a value beyond it may index past an
  // embedding or a class count, which a GPU reports as a device-side assert in the middle of a
  // case rather than here.
  if (!spec.range || tensor.numel() == 0) return;
  const auto [low, high] = at::aminmax(tensor);
  const std::int64_t lowest = low.item<std::int64_t>();
  const std::int64_t highest = high.item<std::int64_t>();
  if (lowest < spec.range->first || highest > spec.range->second) {
    refuse(path, fmt::format("{} has values in [{}, {}], outside the archive's recorded range "
                             "[{}, {}]",
                             which, lowest, highest, spec.range->first, spec.range->second));
  }
}

}  // namespace

std::vector<at::Tensor> readBatchFile(const std::string& path,
                                      const std::vector<BatchTensorSpec>& recorded) {
  const std::vector<c10::IValue> values = elements(path, unpickled(path));
  if (values.size() != recorded.size()) {
    refuse(path,
           fmt::format("holds a tuple or list of {}, the archive records a batch of {} tensors",
                       values.size(), recorded.size()));
  }
  std::vector<at::Tensor> tensors;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!values[i].isTensor()) {
      refuse(path, fmt::format("value {} is a {}, not a tensor", i, values[i].tagKind()));
    }
    // A tensor saved with requires_grad would make the batch a part of autograd's graph.
    const at::Tensor tensor = values[i].toTensor().detach();
    check(path, i, tensor, recorded[i]);
    tensors.push_back(tensor);
  }
  return tensors;
}

}  // namespace splitstep
