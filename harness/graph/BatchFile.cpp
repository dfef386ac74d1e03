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

// A batch's pickle (a tuple of a few tensors) is a few hundred bytes.
constexpr std::size_t kMaxPickleBytes = std::size_t{1} << 20;

// The pickle walked opcode by opcode before LibTorch's unpickler reads it: that unpickler sizes
// its memo by the index a PUT names (one LONG_BINPUT of 2^31 makes it fill 32 GiB). An opcode
// torch.save does not write, an argument past the end, or a memo index past the entries made so
// far is why the pickle is refused; nullopt where it may be read.
std::optional<std::string> pickleProblem(std::string_view pickle) {
  std::size_t memo = 0;  // the memo's entries so far: PUTs number them from 0
  std::size_t at = 0;
  const auto little = [&pickle](std::size_t from, std::size_t bytes) {
    std::uint64_t value = 0;
    for (std::size_t i = bytes; i-- > 0;)
      value = value << 8 | static_cast<unsigned char>(pickle[from + i]);
    return value;
  };
  while (at < pickle.size()) {
    const char op = pickle[at++];
    std::size_t fixed = 0;         // bytes of a fixed argument
    std::size_t length_bytes = 0;  // bytes of a length before a counted argument
    int lines = 0;                 // newline-ended arguments
    switch (op) {
      case '.':  // STOP
        return at == pickle.size() ? std::nullopt
                                   : std::optional<std::string>("bytes after the pickle's end");
      case '(':
      case 'N':
      case '\x88':
      case '\x89':
      case ')':
      case '\x85':
      case '\x86':
      case '\x87':
      case 't':
      case '}':
      case ']':
      case 's':
      case 'u':
      case 'a':
      case 'e':
      case 'R':
      case 'b':
      case 'Q':
      case '\x81':
      case '\x93':
      case '0':
      case '1':
      case '2':
        break;
      case '\x94':  // MEMOIZE
        ++memo;
        break;
      case '\x80':
      case 'K':
        fixed = 1;
        break;  // PROTO, BININT1
      case 'M':
        fixed = 2;
        break;  // BININT2
      case 'J':
        fixed = 4;
        break;  // BININT
      case 'G':
      case '\x95':
        fixed = 8;
        break;  // BINFLOAT, FRAME
      case 'q':
      case 'h':
        fixed = 1;
        break;  // BINPUT, BINGET
      case 'r':
      case 'j':
        fixed = 4;
        break;  // LONG_BINPUT, LONG_BINGET
      case '\x8a':
      case 'U':
      case 'C':
      case '\x8c':
        length_bytes = 1;
        break;
      case 'T':
      case 'X':
      case 'B':
        length_bytes = 4;
        break;
      case 'c':
        lines = 2;
        break;  // GLOBAL module\nname\n
      default:
        return fmt::format("opcode 0x{:02x} at byte {}, which torch.save does not write",
                           static_cast<unsigned char>(op), at - 1);
    }
    if (length_bytes > 0) {
      if (pickle.size() - at < length_bytes) return std::string("a length past the pickle's end");
      fixed = length_bytes + little(at, length_bytes);
    }
    if (pickle.size() - at < fixed) return std::string("an argument past the pickle's end");
    if (op == 'q' || op == 'r' || op == 'h' || op == 'j') {
      const std::uint64_t index = little(at, fixed);
      const bool put = op == 'q' || op == 'r';
      if (index > memo || (!put && index == memo)) {
        return fmt::format("memo index {} where the pickle has made {}", index, memo);
      }
      if (put && index == memo) ++memo;
    }
    at += fixed;
    for (; lines > 0; --lines) {
      const std::size_t end = pickle.find('\n', at);
      if (end == std::string_view::npos) return std::string("a name past the pickle's end");
      at = end + 1;
    }
  }
  return std::string("no end (STOP)");
}

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
    constexpr const char* kPickle = "data.pkl";
    if (!reader.hasRecord(kPickle)) refuse(path, "not a file of torch.save (no data.pkl)");
    if (reader.getRecordSize(kPickle) > kMaxPickleBytes) {
      refuse(path, "its pickle is larger than a batch's");
    }
    const auto [pickle, pickle_bytes] = reader.getRecord(kPickle);
    if (const auto problem =
            pickleProblem({static_cast<const char*>(pickle.get()), pickle_bytes})) {
      refuse(path, "not a pickle of torch.save (" + *problem + ")");
    }
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
