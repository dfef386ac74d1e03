#include "suites/step/TorchProfile.hpp"

#include <ATen/record_function.h>
#include <kineto/ActivityType.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <algorithm>
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

namespace {

// What a profile of a few steps holds for the busy time: the user scopes `scope` keeps (its
// phases, or the replays), the launches and the device work.
struct Profile {
  std::vector<std::pair<std::string, ProfiledScope>> scopes;
  std::vector<ProfiledLaunch> launches;
  std::vector<ProfiledWork> work;
};

Profile profiled(const std::function<void()>& run, Device& device) {
  namespace profiler = torch::autograd::profiler;
  using libkineto::ActivityType;
  using torch::profiler::impl::ProfilerConfig;
  using torch::profiler::impl::ProfilerState;
  // CPU activities too: the scopes are CPU events.
  const std::set<torch::profiler::impl::ActivityType> activities = {
      torch::profiler::impl::ActivityType::CPU, torch::profiler::impl::ActivityType::CUDA};
  const ProfilerConfig config(ProfilerState::KINETO);
  profiler::prepareProfiler(config, activities);
  profiler::enableProfiler(config, activities);
  run();
  device.synchronize();
  const std::unique_ptr<profiler::ProfilerResult> result = profiler::disableProfiler();
  Profile profile;
  for (const profiler::KinetoEvent& e : result->events()) {
    switch (static_cast<ActivityType>(e.activityType())) {
      case ActivityType::USER_ANNOTATION:
        profile.scopes.emplace_back(e.name(), ProfiledScope{e.startNs(), e.endNs()});
        break;
      case ActivityType::CUDA_RUNTIME:
      case ActivityType::CUDA_DRIVER:
        profile.launches.push_back({e.correlationId(), e.startNs()});
        break;
      case ActivityType::CONCURRENT_KERNEL:
      case ActivityType::GPU_MEMCPY:
      case ActivityType::GPU_MEMSET:
        profile.work.push_back({e.correlationId(), e.startNs(), e.endNs()});
        break;
      default:
        break;
    }
  }
  return profile;
}

}  // namespace

std::vector<StepBusy> profileBusy(const std::function<void()>& step, int steps, Device& device) {
  const Profile profile = profiled(
      [&] {
        for (int i = 0; i < steps; ++i) step();
      },
      device);
  std::vector<ProfiledPhase> phases;
  for (const auto& [name, scope] : profile.scopes) {
    if (const auto phase = phaseOfScope(name)) phases.push_back({*phase, scope.start, scope.end});
  }
  return busyTimes(phases, profile.launches, profile.work);
}

std::vector<double> profileReplays(const std::function<void()>& replay, int steps, Device& device) {
  const std::string name = replayScope();
  const Profile profile = profiled(
      [&] {
        for (int i = 0; i < steps; ++i) {
          RECORD_USER_SCOPE(name);
          replay();
        }
      },
      device);
  std::vector<ProfiledScope> scopes;
  for (const auto& [scope_name, scope] : profile.scopes) {
    if (scope_name == name) scopes.push_back(scope);
  }
  std::sort(scopes.begin(), scopes.end(),
            [](const ProfiledScope& a, const ProfiledScope& b) { return a.start < b.start; });
  return busyPerScope(scopes, profile.launches, profile.work);
}

}  // namespace splitstep
