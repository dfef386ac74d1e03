#include "models/ExportedBatch.hpp"

#include <stdexcept>

namespace splitstep {
namespace {

ExportedBatchChecker& checker() {
  static ExportedBatchChecker registered = nullptr;
  return registered;
}

// One batch file per run, as one archive: every rank reads the same one.
std::optional<std::string>& file() {
  static std::optional<std::string> used;
  return used;
}

}  // namespace

ExportedBatchCheckerRegistration::ExportedBatchCheckerRegistration(ExportedBatchChecker c) {
  if (checker() != nullptr) throw std::logic_error("exported batch checker registered twice");
  checker() = c;
}

void useExportedBatchFile(const std::optional<std::string>& path) {
  if (path) {
    if (checker() == nullptr) {
      throw std::invalid_argument(*path + ": this program cannot read batch files");
    }
    checker()(*path);
  }
  file() = path;
}

const std::optional<std::string>& exportedBatchFile() { return file(); }

}  // namespace splitstep
