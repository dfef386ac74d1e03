// An archive of `splitstep-analysis export` (analysis/splitstep_analysis/export.py): the model
// and its loss as torch.export saved them (models/model.json in the export schema, the weights as
// raw bytes under data/), and extra/splitstep.json with what splitstep adds: the format version,
// the parameters and buffers in registration order, the batch's shapes, dtypes and ranges, the
// FLOPs of a step.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/ArrayRef.h>
#include <torch/csrc/utils/generated_serialization_types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace splitstep {

// The version of extra/splitstep.json this build reads; export.py's FORMAT_VERSION.
inline constexpr std::int64_t kExportFormatVersion = 2;

// An archive that cannot be used: the message is one line naming the file and why.
class GraphArchiveError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// One tensor of the batch: the graph's input `name`, its shape and dtype as recorded, and for
// integer tensors the inclusive range of the example's values.
struct BatchTensorSpec {
  std::string name;
  std::vector<std::int64_t> shape;
  at::ScalarType dtype;
  std::optional<std::pair<std::int64_t, std::int64_t>> range;
};

struct GraphArchive {
  std::string path;
  torch::_export::ExportedProgram program;
  std::vector<std::string> parameter_names;  // registration order: "model.0.weight", ...
  std::vector<std::string> buffer_names;
  std::vector<BatchTensorSpec> batch;
  double eager_loss = 0;      // the exporter's eager loss on its example batch
  std::string torch_version;  // torch.__version__ of the exporter
  // FLOPs of one step (forward and backward) on the recorded batch, as torch's FlopCounterMode
  // counted them at export: products, convolutions and attention, two per multiply-add.
  double flop_per_step = 0;
  // Parameters and buffers by their state name, constants by theirs, on the CPU.
  std::map<std::string, at::Tensor> weights;
  std::map<std::string, at::Tensor> constants;
};

// The archive at `path`; throws GraphArchiveError for a missing, truncated or foreign file, or an
// archive of another format version.
GraphArchive readGraphArchive(const std::string& path);

// The bytes a strided view reaches in its storage, (offset + sum of (size - 1) x stride + 1) x
// item, 0 for a view of no element; empty for a negative size, stride or offset, or a count past
// int64. What a tensor read from a file may claim is checked against it before it is read.
std::optional<std::int64_t> viewBytes(c10::IntArrayRef sizes, c10::IntArrayRef strides,
                                      std::int64_t offset, std::int64_t item);

// The export schema's dtype as ATen's; throws GraphArchiveError for one ATen lacks.
at::ScalarType scalarType(torch::_export::ScalarType type);

}  // namespace splitstep
