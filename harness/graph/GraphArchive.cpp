#include "graph/GraphArchive.hpp"

#include <ATen/ops/empty.h>
#include <c10/util/Exception.h>
#include <caffe2/serialize/inline_container.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/InputFile.hpp"
#include "common/Units.hpp"

namespace splitstep {
namespace {

namespace ex = torch::_export;

constexpr const char* kProgramRecord = "models/model.json";
constexpr const char* kExtraRecord = "extra/splitstep.json";
constexpr const char* kWeightsDir = "data/weights/";
constexpr const char* kWeightsConfig = "data/weights/model_weights_config.json";
constexpr const char* kConstantsDir = "data/constants/";
constexpr const char* kConstantsConfig = "data/constants/model_constants_config.json";

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw GraphArchiveError(fmt::format("{}: {}", path, why));
}

// A record is inflated whole: its size as the archive declares it (which inflating cannot
// exceed) is bounded first, so that a small archive cannot claim gigabytes of memory per rank.
// The graph's JSON records of the largest models torch.export writes are tens of MiB.
constexpr std::size_t kMaxMetadataBytes = std::size_t{256} << 20;

// A weight's record is read in pieces of this size, up to what its view reaches.
constexpr std::size_t kWeightChunkBytes = std::size_t{16} << 20;

std::string record(caffe2::serialize::PyTorchStreamReader& reader, const std::string& path,
                   const std::string& name, std::size_t max_bytes = kMaxMetadataBytes) {
  if (!reader.hasRecord(name)) refuse(path, "not an exported model: no " + name);
  if (const std::size_t declared = reader.getRecordSize(name); declared > max_bytes) {
    refuse(path, fmt::format("{} is {}, more than the {} it may be", name,
                             formatBytesApprox(static_cast<double>(declared)),
                             formatBytesApprox(static_cast<double>(max_bytes))));
  }
  const auto [data, size] = reader.getRecord(name);
  return {static_cast<const char*>(data.get()), size};
}

nlohmann::json parse(const std::string& path, const std::string& name, const std::string& text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    refuse(path, fmt::format("{} is not JSON ({})", name, error.what()));
  }
}

std::int64_t concrete(const ex::SymInt& value, const std::string& path) {
  if (value.tag() != ex::SymInt::Tag::AS_INT) refuse(path, "a weight of symbolic shape");
  return value.get_as_int();
}

// A tensor saved as raw bytes (torch.export.save's payload without pickle): its storage, read
// back into ATen's and viewed with the recorded sizes, strides and offset.
at::Tensor payload(caffe2::serialize::PyTorchStreamReader& reader, const std::string& path,
                   const std::string& dir, const std::string& name, const ex::PayloadMeta& meta) {
  if (meta.get_use_pickle() || !meta.get_tensor_meta()) {
    refuse(path, name + " is pickled, which this reader does not load");
  }
  const ex::TensorMeta& tensor = *meta.get_tensor_meta();
  const at::ScalarType dtype = scalarType(tensor.get_dtype());
  const auto item = static_cast<std::int64_t>(c10::elementSize(dtype));
  std::vector<std::int64_t> sizes, strides;
  for (const auto& s : tensor.get_sizes()) sizes.push_back(concrete(s, path));
  for (const auto& s : tensor.get_strides()) strides.push_back(concrete(s, path));
  const std::int64_t offset = concrete(tensor.get_storage_offset(), path);
  // The bytes the view reaches, from the recorded metadata alone, checked against the record's
  // declared size before it is read: nothing is allocated for a shape the record cannot hold.
  const std::optional<std::int64_t> needed = viewBytes(sizes, strides, offset, item);
  const std::string record_name = dir + meta.get_path_name();
  if (!reader.hasRecord(record_name)) refuse(path, "not an exported model: no " + record_name);
  const std::size_t declared = reader.getRecordSize(record_name);
  if (!needed) refuse(path, name + " has a recorded shape no tensor can have");
  if (static_cast<std::uint64_t>(*needed) > declared) {
    refuse(path, name + " is shorter than its recorded shape");
  }
  // Only the bytes the view reaches are read, chunk by chunk: a record that declares more (a
  // small archive whose weight inflates to gigabytes) costs no more memory than its view.
  at::Tensor storage = at::empty({*needed / item}, dtype);
  auto* into = static_cast<char*>(storage.data_ptr());
  if (*needed > 0) {
    std::vector<char> chunk(std::min<std::size_t>(kWeightChunkBytes, declared));
    caffe2::serialize::ChunkRecordIterator chunks =
        reader.createChunkReaderIter(record_name, declared, chunk.size());
    for (std::int64_t read = 0; read < *needed;) {
      const std::size_t got = chunks.next(chunk.data());
      if (got == 0) refuse(path, name + " is shorter than its recorded shape");
      const auto used = std::min<std::int64_t>(static_cast<std::int64_t>(got), *needed - read);
      std::memcpy(into + read, chunk.data(), static_cast<std::size_t>(used));
      read += used;
    }
  }
  return storage.as_strided(sizes, strides, offset).clone();
}

std::map<std::string, at::Tensor> payloads(caffe2::serialize::PyTorchStreamReader& reader,
                                           const std::string& path, const std::string& dir,
                                           const std::string& config) {
  std::map<std::string, at::Tensor> out;
  if (!reader.hasRecord(config)) return out;
  const auto parsed = parse(path, config, record(reader, path, config)).get<ex::PayloadConfig>();
  // Tied weights (GPT-2's embedding and head) are one record under two names: one tensor.
  std::map<std::string, at::Tensor> by_record;
  for (const auto& [name, meta] : parsed.get_config()) {
    auto it = by_record.find(meta.get_path_name());
    if (it == by_record.end()) {
      it = by_record.emplace(meta.get_path_name(), payload(reader, path, dir, name, meta)).first;
    }
    out.emplace(name, it->second);
  }
  return out;
}

at::ScalarType dtypeNamed(const std::string& path, const std::string& name) {
  static const std::map<std::string, at::ScalarType> kNames = {
      {"float32", at::kFloat},     {"float64", at::kDouble}, {"float16", at::kHalf},
      {"bfloat16", at::kBFloat16}, {"int64", at::kLong},     {"int32", at::kInt},
      {"int16", at::kShort},       {"int8", at::kChar},      {"uint8", at::kByte},
      {"bool", at::kBool}};
  const auto it = kNames.find(name);
  if (it == kNames.end()) refuse(path, "a batch tensor of dtype " + name);
  return it->second;
}

// An integer of the record: nlohmann's get<int64_t> would truncate 2.5 to 2 and wrap 2^64.
std::int64_t integer(const GraphArchive& archive, const nlohmann::json& value,
                     const std::string& what) {
  if (!value.is_number_integer() ||
      (value.is_number_unsigned() &&
       value.get<std::uint64_t>() >
           static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
    refuse(archive.path, fmt::format("{} is {}, not an integer", what, value.dump()));
  }
  return value.get<std::int64_t>();
}

std::vector<std::int64_t> integers(const GraphArchive& archive, const nlohmann::json& values,
                                   const std::string& what) {
  if (!values.is_array()) refuse(archive.path, fmt::format("{} is not a list", what));
  std::vector<std::int64_t> out;
  for (const auto& value : values) out.push_back(integer(archive, value, what));
  return out;
}

// The most elements a batch tensor may hold: 2^34, 64 GiB of fp32, more than any GPU holds. A
// recorded shape past it is an edited file, refused before anything is allocated for it.
constexpr std::int64_t kMaxBatchElements = std::int64_t{1} << 34;

// A batch tensor's recorded shape: a batch dimension and each size at least 1, and their product
// within kMaxBatchElements.
void checkShape(const GraphArchive& archive, const BatchTensorSpec& spec) {
  std::int64_t elements = 1;
  bool too_many = spec.shape.empty();
  for (const std::int64_t size : spec.shape) {
    if (size < 1) {
      refuse(archive.path, fmt::format("batch tensor {} has a size {} in its shape [{}]", spec.name,
                                       size, fmt::join(spec.shape, ", ")));
    }
    too_many = too_many || __builtin_mul_overflow(elements, size, &elements) ||
               elements > kMaxBatchElements;
  }
  if (too_many) {
    refuse(archive.path,
           fmt::format(
               "batch tensor {} has the shape [{}]: {}", spec.name, fmt::join(spec.shape, ", "),
               spec.shape.empty() ? "no batch dimension" : fmt::format("more than 2^34 elements")));
  }
}

// An integer tensor's range within what its dtype holds (a float tensor has none).
void checkRange(const GraphArchive& archive, const BatchTensorSpec& spec) {
  if (!spec.range) return;
  const auto [low, high] = *spec.range;
  const auto bounds = [&]() -> std::pair<std::int64_t, std::int64_t> {
    switch (spec.dtype) {
      case at::kLong:
        return {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
      case at::kInt:
        return {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()};
      case at::kShort:
        return {std::numeric_limits<std::int16_t>::min(), std::numeric_limits<std::int16_t>::max()};
      case at::kChar:
        return {std::numeric_limits<std::int8_t>::min(), std::numeric_limits<std::int8_t>::max()};
      case at::kByte:
        return {0, std::numeric_limits<std::uint8_t>::max()};
      case at::kBool:
        return {0, 1};
      default:
        refuse(archive.path,
               fmt::format("batch tensor {} of dtype {} has a range: only integers have one",
                           spec.name, c10::toString(spec.dtype)));
    }
  }();
  // The run draws from [low, high] inclusive, as randint(low, high + 1): high + 1 and high - low
  // must not overflow either.
  std::int64_t span = 0;
  if (low < bounds.first || high > bounds.second || __builtin_sub_overflow(high, low, &span) ||
      high == std::numeric_limits<std::int64_t>::max()) {
    refuse(archive.path, fmt::format("batch tensor {} has the range [{}, {}], which its dtype {} "
                                     "cannot draw",
                                     spec.name, low, high, c10::toString(spec.dtype)));
  }
}

void readExtra(GraphArchive& archive, const nlohmann::json& extra) {
  const auto version = integer(archive, extra.at("format_version"), "format_version");
  if (version != kExportFormatVersion) {
    refuse(archive.path, fmt::format("exported in format {}, this splitstep reads format {}: "
                                     "export it again with this version's splitstep-analysis",
                                     version, kExportFormatVersion));
  }
  archive.parameter_names = extra.at("parameters").get<std::vector<std::string>>();
  archive.buffer_names = extra.at("buffers").get<std::vector<std::string>>();
  archive.eager_loss = extra.at("eager_loss").get<double>();
  archive.torch_version = extra.at("torch_version").get<std::string>();
  archive.flop_per_step = extra.at("flop_per_step").get<double>();
  if (archive.flop_per_step < 0) refuse(archive.path, "a negative flop_per_step");
  for (const auto& entry : extra.at("batch")) {
    BatchTensorSpec spec{entry.at("name").get<std::string>(),
                         {},
                         dtypeNamed(archive.path, entry.at("dtype").get<std::string>()),
                         std::nullopt};
    spec.shape = integers(archive, entry.at("shape"), "batch tensor " + spec.name + "'s shape");
    checkShape(archive, spec);
    if (entry.contains("range")) {
      const auto range =
          integers(archive, entry.at("range"), "batch tensor " + spec.name + "'s range");
      if (range.size() != 2 || range[0] > range[1]) refuse(archive.path, "a malformed range");
      spec.range = std::pair{range[0], range[1]};
      checkRange(archive, spec);
    }
    archive.batch.push_back(std::move(spec));
  }
}

}  // namespace

std::optional<std::int64_t> viewBytes(c10::IntArrayRef sizes, c10::IntArrayRef strides,
                                      std::int64_t offset, std::int64_t item) {
  std::int64_t end = offset + 1;  // one past the last element the view reaches
  bool bad = offset < 0 || sizes.size() != strides.size();
  bool empty = false;
  for (std::size_t i = 0; !bad && i < sizes.size(); ++i) {
    std::int64_t reach = 0;
    empty = empty || sizes[i] == 0;
    bad = sizes[i] < 0 || strides[i] < 0 ||
          __builtin_mul_overflow(std::max<std::int64_t>(sizes[i] - 1, 0), strides[i], &reach) ||
          __builtin_add_overflow(end, reach, &end);
  }
  std::int64_t bytes = 0;
  if (bad || __builtin_mul_overflow(empty ? 0 : end, item, &bytes)) return std::nullopt;
  return bytes;
}

at::ScalarType scalarType(ex::ScalarType type) {
  switch (type) {
    case ex::ScalarType::BYTE:
      return at::kByte;
    case ex::ScalarType::CHAR:
      return at::kChar;
    case ex::ScalarType::SHORT:
      return at::kShort;
    case ex::ScalarType::INT:
      return at::kInt;
    case ex::ScalarType::LONG:
      return at::kLong;
    case ex::ScalarType::HALF:
      return at::kHalf;
    case ex::ScalarType::FLOAT:
      return at::kFloat;
    case ex::ScalarType::DOUBLE:
      return at::kDouble;
    case ex::ScalarType::BOOL:
      return at::kBool;
    case ex::ScalarType::BFLOAT16:
      return at::kBFloat16;
    default:
      throw GraphArchiveError(fmt::format("dtype {}", ex::printEnum(type)));
  }
}

GraphArchive readGraphArchive(const std::string& path) {
  // Weights are read record by record, never the file whole: no bound on its size.
  if (const auto problem =
          inputFileProblem(path, std::numeric_limits<std::uintmax_t>::max(), "an archive")) {
    refuse(path, *problem);
  }
  GraphArchive archive;
  archive.path = path;
  try {
    caffe2::serialize::PyTorchStreamReader reader(path);
    const nlohmann::json extra = parse(path, kExtraRecord, record(reader, path, kExtraRecord));
    readExtra(archive, extra);
    archive.program = parse(path, kProgramRecord, record(reader, path, kProgramRecord))
                          .get<ex::ExportedProgram>();
    archive.weights = payloads(reader, path, kWeightsDir, kWeightsConfig);
    archive.constants = payloads(reader, path, kConstantsDir, kConstantsConfig);
  } catch (const GraphArchiveError&) {
    throw;
  } catch (const c10::Error& error) {
    // PyTorchStreamReader's refusals of a file that is not a zip or is cut short: its first
    // sentence ("failed finding central directory"); the rest is miniz's advice on checkpoints.
    const std::string message = error.msg().substr(0, error.msg().find('\n'));
    refuse(path, "not a readable archive (" + message.substr(0, message.find(". ")) + ")");
  } catch (const nlohmann::json::exception& error) {
    refuse(path, fmt::format("a malformed record ({})", error.what()));
  } catch (const std::exception& error) {
    // The export schema's readers on a record of the wrong shape (std::runtime_error, and
    // std::out_of_range from an index the record names).
    refuse(path, fmt::format("a malformed record ({})", error.what()));
  }
  for (const auto& name : archive.parameter_names) {
    if (archive.weights.count(name) == 0) refuse(path, "no weights for parameter " + name);
  }
  return archive;
}

}  // namespace splitstep
