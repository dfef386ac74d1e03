// exported: the model of an archive of `splitstep-analysis export` (graph/GraphArchive.hpp),
// trained with --model-file. Its descriptor is filled from the archive when the options are
// read, by the reader models/ExportedModule.cpp registers (reading the archive needs LibTorch;
// this half does not), so that the options and the memory check see it as a built-in model's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "models/StepModel.hpp"

namespace splitstep {

// What the step needs to know of an archive before it builds anything.
struct ExportedModelFacts {
  std::string path;
  double parameters = 0;      // exact: the sum of the parameters' recorded shapes
  std::int64_t batch = 0;     // samples per step: the recorded batch's leading dimension
  double batch_bytes = 0;     // every batch tensor, as recorded
  double flop_per_step = 0;   // of one step on `batch` samples, as the exporter counted them
  std::string torch_version;  // of the torch that exported it, as torch.__version__ gave it
  // Every tensor the graph computes into storage of its own (no view, no in-place result), in
  // elements: floating ones scale with the precision, the others (indices, masks) are counted in
  // `fixed_bytes`. A bound on what forward keeps.
  double floating_elements = 0;
  double fixed_bytes = 0;
};

// Reads the facts of the archive at a path; throws std::invalid_argument, one line naming the
// file and why, for one the step cannot train (missing, truncated, foreign, another format
// version, operations the graph executor cannot run).
using ExportedModelReader = ExportedModelFacts (*)(const std::string& path);

// Registers the reader, once, from models/ExportedModule.cpp.
struct ExportedModelReaderRegistration {
  explicit ExportedModelReaderRegistration(ExportedModelReader reader);
};

// Reads the archive at `path` into the exported descriptor; throws std::invalid_argument as
// the reader does, or where this program has no reader.
void loadExportedModel(const std::string& path);
// The facts loadExportedModel read; throws std::logic_error before it has.
const ExportedModelFacts& exportedModelFacts();

// Why an archive exported by torch `exported` (torch.__version__, "2.15.0+cu130") is not of the
// release of LibTorch `linked` ("2.11.0"): "exported with torch 2.15.0, this splitstep runs
// LibTorch 2.11.0"; empty where both are one major.minor. A local suffix (+cu130) and the patch
// level do not count: torch.export's format and operators change between releases.
std::optional<std::string> otherTorchRelease(const std::string& exported,
                                             const std::string& linked);
// The release of a torch version: "2.11.0+cu130" -> "2.11"; empty for one of no major.minor.
std::string torchRelease(const std::string& version);

// Its flop_per_step is the archive's, for its batch alone (another throws
// std::invalid_argument, as the batch maker does): FlopCounterMode's count, not a formula.
extern const StepModelDescriptor kExportedModel;

}  // namespace splitstep
