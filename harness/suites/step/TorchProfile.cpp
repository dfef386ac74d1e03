#include "suites/step/TorchProfile.hpp"

#include <torch/csrc/autograd/profiler_kineto.h>

#include <filesystem>
#include <set>

namespace splitstep {

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

}  // namespace splitstep
