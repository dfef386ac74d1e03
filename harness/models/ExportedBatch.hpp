// --batch-file: the batch the exported model (models/Exported.hpp) trains on, read from a file of
// torch.save in place of one drawn from the archive's recorded shapes; every rank trains on it.
// Checking the file needs LibTorch (this half does not): models/ExportedModule.cpp registers
// the checker, as it does the archive's reader.
#pragma once

#include <optional>
#include <string>

namespace splitstep {

// Checks that the file at `path` holds the batch the loaded archive records (as many tensors,
// each of the recorded shape and dtype, integer values in the recorded range); throws
// std::invalid_argument, one line naming the file and the first mismatch.
using ExportedBatchChecker = void (*)(const std::string& path);

// Registers the checker, once, from models/ExportedModule.cpp.
struct ExportedBatchCheckerRegistration {
  explicit ExportedBatchCheckerRegistration(ExportedBatchChecker checker);
};

// The run's batch file, checked against the archive loadExportedModel read; nullopt: none, the
// batch is drawn from the recorded shapes. Throws std::invalid_argument as the checker does, or
// where this program has no checker.
void useExportedBatchFile(const std::optional<std::string>& path);
// The file useExportedBatchFile took last.
const std::optional<std::string>& exportedBatchFile();

}  // namespace splitstep
