#include "models/Exported.hpp"

#include <fmt/format.h>

#include <optional>
#include <stdexcept>

namespace splitstep {
namespace {

ExportedModelReader& reader() {
  static ExportedModelReader registered = nullptr;
  return registered;
}

// One archive per run: --model-file names one.
std::optional<ExportedModelFacts>& facts() {
  static std::optional<ExportedModelFacts> loaded;
  return loaded;
}

double parameters(const StepShape&) { return exportedModelFacts().parameters; }
std::int64_t batch(const StepShape&) { return exportedModelFacts().batch; }
// Counted on the recorded batch, whose size the graph fixes: no other is run.
double flopPerStep(const StepShape&, std::int64_t rows) {
  const ExportedModelFacts& f = exportedModelFacts();
  if (rows != f.batch) {
    throw std::invalid_argument(
        fmt::format("the exported graph's FLOPs are of {} samples, not {}", f.batch, rows));
  }
  return f.flop_per_step;
}
double activations(const StepShape&, double activation_bytes, bool) {
  const ExportedModelFacts& f = exportedModelFacts();
  return f.floating_elements * activation_bytes + f.fixed_bytes;
}
double batchBytes(const StepShape&) { return exportedModelFacts().batch_bytes; }

}  // namespace

ExportedModelReaderRegistration::ExportedModelReaderRegistration(ExportedModelReader r) {
  if (reader() != nullptr) throw std::logic_error("exported model reader registered twice");
  reader() = r;
}

void loadExportedModel(const std::string& path) {
  if (reader() == nullptr) {
    throw std::invalid_argument(path + ": this program cannot read exported models");
  }
  facts() = reader()(path);
}

const ExportedModelFacts& exportedModelFacts() {
  if (!facts()) throw std::logic_error("no exported model loaded (--model-file)");
  return *facts();
}

std::string torchRelease(const std::string& version) {
  const std::size_t major = version.find_first_not_of("0123456789");
  if (major == 0 || major == std::string::npos || version[major] != '.') return "";
  const std::size_t minor = version.find_first_not_of("0123456789", major + 1);
  if (minor == major + 1) return "";
  return version.substr(0, minor);
}

std::optional<std::string> otherTorchRelease(const std::string& exported,
                                             const std::string& linked) {
  const std::string release = torchRelease(exported);
  if (!release.empty() && release == torchRelease(linked)) return std::nullopt;
  return fmt::format("exported with torch {}, this splitstep runs LibTorch {}",
                     exported.empty() ? "of no recorded version" : exported, linked);
}

const StepModelDescriptor kExportedModel = {
    .name = "exported",
    .reproduces = "",
    .shape = {},
    .sizing = {},
    .parameters = parameters,
    .batch = batch,
    .flop_per_step = flopPerStep,
    .activations = activations,
    .batch_bytes = batchBytes,
    .shape_refusal = nullptr,
    .architecture = {},
    .named_shapes = {},
};

}  // namespace splitstep
