#include "suites/step/TorchProfile.hpp"

#include <kineto/ActivityType.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <filesystem>
#include <optional>
#include <set>

namespace splitstep {
namespace {

std::optional<Phase> phaseOfScope(const std::string& name) {
  for (Phase phase : kPhases) {
    if (name == phaseScope(phase)) return phase;
  }
  return std::nullopt;
}

}  // namespace

void profileSteps(const std::function<void()>& step, int steps, Device& device,
                  const std::string& path) {
  namespace profiler = torch::autograd::profiler;
  using torch::profiler::impl::ActivityType;
  using torch::profiler::impl::ProfilerConfig;
  using torch::profiler::impl::ProfilerState;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  std::set<ActivityType> activities = {ActivityType::CPU};
  if (device.isCuda()) activities.insert(ActivityType::CUDA);
  const ProfilerConfig config(ProfilerState::KINETO);
  profiler::prepareProfiler(config, activities);
  profiler::enableProfiler(config, activities);
  for (int i = 0; i < steps; ++i) step();
  device.synchronize();
  profiler::disableProfiler()->save(path);
}

std::vector<StepBusy> profileBusy(const std::function<void()>& step, int steps, Device& device) {
  namespace profiler = torch::autograd::profiler;
  using libkineto::ActivityType;
  using torch::profiler::impl::ProfilerConfig;
  using torch::profiler::impl::ProfilerState;
  // CPU activities too: the phases' scopes are CPU events.
  const std::set<torch::profiler::impl::ActivityType> activities = {
      torch::profiler::impl::ActivityType::CPU, torch::profiler::impl::ActivityType::CUDA};
  const ProfilerConfig config(ProfilerState::KINETO);
  profiler::prepareProfiler(config, activities);
  profiler::enableProfiler(config, activities);
  for (int i = 0; i < steps; ++i) step();
  device.synchronize();
  const std::unique_ptr<profiler::ProfilerResult> result = profiler::disableProfiler();
  std::vector<ProfiledPhase> phases;
  std::vector<ProfiledLaunch> launches;
  std::vector<ProfiledWork> work;
  for (const profiler::KinetoEvent& e : result->events()) {
    switch (static_cast<ActivityType>(e.activityType())) {
      case ActivityType::USER_ANNOTATION:
        if (const auto phase = phaseOfScope(e.name())) {
          phases.push_back({*phase, e.startNs(), e.endNs()});
        }
        break;
      case ActivityType::CUDA_RUNTIME:
      case ActivityType::CUDA_DRIVER:
        launches.push_back({e.correlationId(), e.startNs()});
        break;
      case ActivityType::CONCURRENT_KERNEL:
      case ActivityType::GPU_MEMCPY:
      case ActivityType::GPU_MEMSET:
        work.push_back({e.correlationId(), e.startNs(), e.endNs()});
        break;
      default:
        break;
    }
  }
  return busyTimes(phases, launches, work);
}

}  // namespace splitstep
