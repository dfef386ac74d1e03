#include "models/Workload.hpp"

#include <torch/utils.h>

#include <map>
#include <stdexcept>
#include <utility>

namespace splitstep {
namespace {

thread_local bool captured_forward = false;

// Filled by WorkloadRegistrations during static initialisation; a function-local static, so
// that it exists before the first registration whatever order the sources initialise in.
std::map<std::string, WorkloadMaker, std::less<>>& makers() {
  static std::map<std::string, WorkloadMaker, std::less<>> registered;
  return registered;
}

}  // namespace

CapturedForward::CapturedForward() : was_(std::exchange(captured_forward, true)) {}

CapturedForward::~CapturedForward() { captured_forward = was_; }

bool forwardIsCaptured() { return captured_forward; }

WorkloadRegistration::WorkloadRegistration(const StepModelDescriptor& model, WorkloadMaker maker) {
  if (!makers().emplace(std::string(model.name), maker).second) {
    throw std::logic_error("step model registered twice: " + std::string(model.name));
  }
}

std::unique_ptr<Workload> makeWorkload(const StepModelDescriptor& model, const StepShape& shape,
                                       c10::Device device, std::uint64_t seed) {
  const auto it = makers().find(model.name);
  if (it == makers().end()) {
    throw std::invalid_argument("no module for step model " + std::string(model.name));
  }
  // Modules draw their initial weights from the global CPU generator.
  torch::manual_seed(seed);
  return it->second(shape, device);
}

std::vector<std::string> modelsWithoutWorkload() {
  std::vector<std::string> missing;
  for (const StepModelDescriptor* model : stepModels()) {
    if (makers().find(model->name) == makers().end()) missing.emplace_back(model->name);
  }
  return missing;
}

}  // namespace splitstep
