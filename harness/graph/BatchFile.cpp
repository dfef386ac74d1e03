#include "graph/BatchFile.hpp"

#include <ATen/ops/aminmax.h>
#include <c10/util/Exception.h>
#include <caffe2/serialize/inline_container.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/csrc/jit/serialization/import_read.h>
#include <torch/csrc/jit/serialization/storage_context.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string_view>

#include "common/InputFile.hpp"

namespace splitstep {
namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw GraphArchiveError(fmt::format("{}: {}", path, why));
}

// As PyTorch names them ("float32", "int64"), which is how the archive records them.
std::string dtypeName(at::ScalarType dtype) { return c10::getDtypeNames(dtype).first; }

std::string shapeText(at::IntArrayRef shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

// A batch is the few tensors of one step, which every rank holds in memory: a larger file is
// not one, and is refused before it is read.
constexpr std::uintmax_t kMaxBatchFileBytes = std::uintmax_t{4} << 30;

// The file's value, and the bytes each tensor storage's record actually holds: the unpickler
// sizes a storage as the pickle claims and fills it from its record without comparing the two
// (torch.load compares them: "record size does not match expected size").
struct Unpickled {
  c10::IValue value;
  std::map<const c10::StorageImpl*, std::size_t> record_bytes;
};

Unpickled unpickled(const std::string& path) {
  if (const auto problem = inputFileProblem(path, kMaxBatchFileBytes, "a batch file")) {
    refuse(path, *problem);
  }
  try {
    // The reader reads the zip's directory and then record by record, never the file whole: a
    // file that is not a zip is refused from its directory. As torch::pickle_load reads it (the
    // pickle "data.pkl", storages under "data/"), with the storages kept by name so that each can
    // be held to its record.
    caffe2::serialize::PyTorchStreamReader reader(path);
    auto storages = std::make_shared<torch::jit::DeserializationStorageContext>();
    Unpickled out;
    out.value = torch::jit::readArchiveAndTensors(
        "data", "", "", std::nullopt, std::nullopt, std::nullopt, reader,
        torch::jit::Unpickler::defaultTypeParser, storages);
    constexpr std::string_view kStorageDir = "data/";
    for (const std::string& record : reader.getAllRecords()) {
      if (!record.starts_with(kStorageDir)) continue;
      const std::string key = record.substr(kStorageDir.size());
      if (!storages->hasStorage(key)) continue;
      out.record_bytes[storages->getStorage(key).unsafeGetStorageImpl()] =
          reader.getRecordSize(record);
    }
    return out;
  } catch (const GraphArchiveError&) {
    throw;
  } catch (const c10::Error& error) {
    // PyTorchStreamReader's first sentence says why; the rest is advice on checkpoints.
    const std::string& why = error.msg();
    refuse(path, "not a file of torch.save (" + why.substr(0, why.find_first_of(".\n")) + ")");
  } catch (const std::exception& error) {
    // The unpickler's own failures on an edited pickle (std::stoull on a storage's key).
    const std::string why = error.what();
    refuse(path, "not a file of torch.save (" + why.substr(0, why.find('\n')) + ")");
  }
}

// The file's top-level value as a list of values: a tuple's or a list's elements.
std::vector<c10::IValue> elements(const std::string& path, const c10::IValue& value) {
  if (value.isTuple()) return value.toTupleRef().elements().vec();
  if (value.isList()) return value.toListRef().vec();
  refuse(path, fmt::format("holds a {}, not a tuple or list of tensors", value.tagKind()));
}

// Where a storage's record holds fewer bytes than the storage claims, or the storage fewer than
// the tensor's sizes, strides and offset reach, reading the tensor would read past its record.
void checkStorage(const std::string& path, const std::string& which, const at::Tensor& tensor,
                  const Unpickled& file) {
  const c10::Storage& storage = tensor.storage();
  const auto record = file.record_bytes.find(storage.unsafeGetStorageImpl());
  if (record == file.record_bytes.end() || record->second < storage.nbytes()) {
    refuse(path,
           fmt::format("{}'s storage claims {} B, its record holds {}", which, storage.nbytes(),
                       record == file.record_bytes.end() ? std::string("none")
                                                         : fmt::format("{} B", record->second)));
  }
  const std::optional<std::int64_t> needed =
      viewBytes(tensor.sizes(), tensor.strides(), tensor.storage_offset(),
                static_cast<std::int64_t>(tensor.element_size()));
  const auto held = static_cast<std::int64_t>(storage.nbytes());
  if (!needed || *needed > held) {
    refuse(path, fmt::format("{} of shape {} needs {} of storage, which holds {} B", which,
                             shapeText(tensor.sizes()),
                             needed ? fmt::format("{} B", *needed)
                                    : std::string("more bytes than an int64 counts"),
                             held));
  }
}

void check(const std::string& path, std::size_t i, const at::Tensor& tensor,
           const BatchTensorSpec& spec, const Unpickled& file) {
  const std::string which = fmt::format("tensor {} ({})", i, spec.name);
  if (tensor.layout() != at::kStrided) refuse(path, which + " is not a dense tensor");
  checkStorage(path, which, tensor, file);
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
  const Unpickled file = unpickled(path);
  const std::vector<c10::IValue> values = elements(path, file.value);
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
    check(path, i, tensor, recorded[i], file);
    tensors.push_back(tensor);
  }
  return tensors;
}

}  // namespace splitstep
