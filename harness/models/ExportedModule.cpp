// exported's reader and module (models/Exported.hpp declares the model): the archive's graph run
// by graph/GraphProgram.
#include <ATen/ops/empty.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <c10/core/ScalarType.h>
#include <fmt/format.h>

#include <optional>
#include <stdexcept>

#include "graph/BatchFile.hpp"
#include "graph/GraphOperations.hpp"
#include "graph/GraphProgram.hpp"
#include "models/Exported.hpp"
#include "models/ExportedBatch.hpp"
#include "models/ModuleParts.hpp"
#include "models/Workload.hpp"

namespace splitstep {
namespace {

// The batch's tensors share one byte buffer, each at an offset aligned for any dtype, so that
// the step copies it as the one input a built-in model has; the graph reads typed views of it.
constexpr std::int64_t kAlignment = 8;

std::int64_t numel(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) n *= d;
  return n;
}

std::int64_t bytesOf(const BatchTensorSpec& spec) {
  return numel(spec.shape) * static_cast<std::int64_t>(c10::elementSize(spec.dtype));
}

// The archive as the options' reading read it, kept so that a start-up reads a large archive
// once: the batch file's check reads it here, the first workload takes it (a later one, of
// another precision, reads the file again rather than hold a second copy of the weights).
std::optional<GraphArchive>& keptArchive() {
  static std::optional<GraphArchive> kept;
  return kept;
}

const GraphArchive& archiveAt(const std::string& path) {
  if (!keptArchive() || keptArchive()->path != path) keptArchive() = readGraphArchive(path);
  return *keptArchive();
}

GraphArchive takeArchive(const std::string& path) {
  if (!keptArchive() || keptArchive()->path != path) return readGraphArchive(path);
  GraphArchive archive = std::move(*keptArchive());
  keptArchive().reset();
  return archive;
}

// The tensors the graph's nodes compute into storage of their own, with their recorded metadata:
// not the graph's inputs (parameters, buffers and the batch are counted apart), nor a view or an
// in-place result (an alias of its input, by the operation's schema: `Tensor(a)`), which eager
// makes without memory either. The nodes of a scope's subgraph (wrap_with_set_grad_enabled,
// wrap_with_autocast) compute too: its outputs are theirs.
std::vector<std::pair<std::string, torch::_export::TensorMeta>> computedTensors(
    const torch::_export::Graph& graph) {
  using Tag = torch::_export::Argument::Tag;
  std::vector<std::pair<std::string, torch::_export::TensorMeta>> computed;
  for (const torch::_export::Node& node : graph.get_nodes()) {
    for (const torch::_export::NamedArgument& input : node.get_inputs()) {
      if (input.get_arg().tag() != Tag::AS_GRAPH) continue;
      const auto inner = computedTensors(*input.get_arg().get_as_graph().get_graph());
      computed.insert(computed.end(), inner.begin(), inner.end());
    }
    const std::optional<c10::OperatorHandle> op = findOperation(node.get_target());
    if (!op) continue;  // a scope, counted above; or refused with its name when planned
    const std::vector<c10::Argument>& returns = op->schema().returns();
    const std::vector<torch::_export::Argument>& outputs = node.get_outputs();
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (i < returns.size() && returns[i].alias_info() != nullptr) continue;
      std::vector<std::string> names;
      if (outputs[i].tag() == Tag::AS_TENSOR)
        names.push_back(outputs[i].get_as_tensor().get_name());
      if (outputs[i].tag() == Tag::AS_TENSORS) {
        for (const auto& t : outputs[i].get_as_tensors()) names.push_back(t.get_name());
      }
      for (const std::string& name : names) {
        const auto meta = graph.get_tensor_values().find(name);
        if (meta != graph.get_tensor_values().end()) computed.emplace_back(name, meta->second);
      }
    }
  }
  return computed;
}

ExportedModelFacts readFacts(const std::string& path) {
  const GraphArchive& archive = archiveAt(path);
  // Refuses, naming them, the operations the executor cannot run.
  const GraphProgram program(archive, c10::Device(c10::kCPU));
  ExportedModelFacts facts;
  facts.path = path;
  for (const at::Tensor& p : program.parameters()) {
    facts.parameters += static_cast<double>(p.numel());
  }
  if (archive.batch.empty() || archive.batch.front().shape.empty()) {
    throw GraphArchiveError(path + ": the recorded batch has no leading (sample) dimension");
  }
  facts.batch = archive.batch.front().shape.front();
  facts.flop_per_step = archive.flop_per_step;
  facts.torch_version = archive.torch_version;
  for (const BatchTensorSpec& spec : archive.batch) {
    facts.batch_bytes += static_cast<double>(bytesOf(spec));
  }
  const auto& graph = archive.program.get_graph_module().get_graph();
  for (const auto& [name, meta] : computedTensors(graph)) {
    double elements = 1;
    for (const auto& size : meta.get_sizes()) {
      if (size.tag() != torch::_export::SymInt::Tag::AS_INT) {
        throw GraphArchiveError(path + ": " + name + " has a symbolic shape");
      }
      elements *= static_cast<double>(size.get_as_int());
    }
    const at::ScalarType dtype = scalarType(meta.get_dtype());
    if (c10::isFloatingType(dtype)) {
      facts.floating_elements += elements;
    } else {
      facts.fixed_bytes += elements * static_cast<double>(c10::elementSize(dtype));
    }
  }
  return facts;
}

class ExportedWorkload final : public Workload {
 public:
  // `file_batch`: the batch file's tensors (graph/BatchFile.hpp), or none to draw each batch.
  ExportedWorkload(const GraphArchive& archive, c10::Device device,
                   std::vector<at::Tensor> file_batch)
      : program_(archive, device), file_batch_(std::move(file_batch)) {
    std::int64_t offset = 0;
    for (const BatchTensorSpec& spec : program_.batch()) {
      offsets_.push_back(offset);
      offset += (bytesOf(spec) + kAlignment - 1) / kAlignment * kAlignment;
    }
    packed_bytes_ = offset;
  }
  std::vector<at::Tensor> parameters() const override { return program_.parameters(); }
  std::vector<std::string> parameterNames() const override { return program_.parameterNames(); }
  // The graph computes the loss itself: forward runs all of it, and loss() hands it on.
  at::Tensor forward(const at::Tensor& input) override { return program_.loss(unpacked(input)); }
  at::Tensor loss(const at::Tensor& output, const at::Tensor&) const override { return output; }
  // The batch file's tensors, whatever the seed; without one, the recorded shapes filled as the
  // exporter's example was: floating tensors from a normal distribution, integer ones uniformly
  // over the example's range. The target is empty.
  Batch hostBatch(std::int64_t rows, std::uint64_t seed) const override {
    if (rows != batchSize()) {
      throw std::invalid_argument(
          fmt::format("the exported graph takes batches of {} samples, not {}", batchSize(), rows));
    }
    at::Generator gen = generator(seed);
    at::Tensor packed = at::empty({packed_bytes_}, at::kByte);
    const std::vector<at::Tensor> views = unpacked(packed);
    for (std::size_t i = 0; i < views.size(); ++i) {
      const BatchTensorSpec& spec = program_.batch()[i];
      if (!file_batch_.empty()) {
        views[i].copy_(file_batch_[i]);
      } else if (c10::isFloatingType(spec.dtype)) {
        views[i].copy_(at::randn(spec.shape, gen));
      } else if (spec.range) {
        views[i].copy_(at::randint(spec.range->first, spec.range->second + 1, spec.shape, gen));
      } else {
        throw std::invalid_argument("exported batch tensor " + spec.name +
                                    " has no recorded range");
      }
    }
    return {packed, at::empty({0})};
  }
  std::int64_t batchSize() const override { return program_.batch().front().shape.front(); }

 private:
  std::vector<at::Tensor> unpacked(const at::Tensor& packed) const {
    std::vector<at::Tensor> views;
    for (std::size_t i = 0; i < offsets_.size(); ++i) {
      const BatchTensorSpec& spec = program_.batch()[i];
      views.push_back(
          packed.narrow(0, offsets_[i], bytesOf(spec)).view(spec.dtype).view(spec.shape));
    }
    return views;
  }

  mutable GraphProgram program_;
  std::vector<at::Tensor> file_batch_;
  std::vector<std::int64_t> offsets_;
  std::int64_t packed_bytes_ = 0;
};

const ExportedModelReaderRegistration kExportedReader(readFacts);

const ExportedBatchCheckerRegistration kExportedBatchChecker([](const std::string& path) {
  readBatchFile(path, archiveAt(exportedModelFacts().path).batch);
});

const WorkloadRegistration kExportedWorkload(kExportedModel, [](const StepShape&,
                                                                c10::Device device) {
  const GraphArchive archive = takeArchive(exportedModelFacts().path);
  const std::optional<std::string>& file = exportedBatchFile();
  std::vector<at::Tensor> file_batch;
  if (file) file_batch = readBatchFile(*file, archive.batch);
  return std::unique_ptr<Workload>(
      std::make_unique<ExportedWorkload>(archive, device, std::move(file_batch)));
});

}  // namespace
}  // namespace splitstep
