#include "startup/StartupChecks.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <limits>
#include <variant>
#include <vector>

#include "cluster/PlanAgreement.hpp"
#include "device/Device.hpp"
#include "device/FreeMemory.hpp"
#include "device/HostMemory.hpp"
#include "meta/BuildInfo.hpp"
#include "options/OptionValue.hpp"
#include "report/OutputCatalogue.hpp"
#include "report/OutputFiles.hpp"

namespace splitstep {
namespace {

// Paths are echoed up to this length, escaped, in refusals.
constexpr std::size_t kPathEcho = 200;

}  // namespace

void requireSamePlan(const RunPlan& plan, const Cluster& cluster) {
  const std::vector<std::uint64_t> hashes = cluster.allgather(planHash(plan, buildId()));
  if (auto mismatch = describePlanMismatch(hashes, cluster.hosts())) {
    throw StartupRefused(*mismatch, cluster.rank() == 0);
  }
  // The same plan on every rank: every rank finds the same rank outside the world, or none.
  cluster.requireAllOk(rankOutsideWorld(plan, cluster.size()));
}

std::vector<OutputLock> requireWritableOutputs(const RunPlan& plan, const Cluster& cluster) {
  const OutputPlan& output = plan.output;
  std::optional<std::string> refusal;
  // Every rank writes its own profiles.
  if (!plan.step.torch_profile_dir.empty()) {
    if (const auto why = whyNoOutputDirectory(plan.step.torch_profile_dir)) {
      refusal = fmt::format("--torch-profile: '{}' {}",
                            printable(plan.step.torch_profile_dir, kPathEcho), *why);
    }
  }
  // Only rank 0 writes the other files, so only rank 0 can tell whether it can; it tells before
  // the run, not after it, and holds each file's lock until the run ends.
  std::vector<OutputLock> locks;
  if (cluster.rank() == 0 && !refusal) {
    std::vector<OutputPath> outputs;
    for (const OutputFile& file : output.files) {
      const OutputSpec* spec = findOutput(file.name);
      if (spec != nullptr && !file.path.empty()) {
        outputs.push_back({"--" + file.name, file.path, spec->kind});
      }
    }
    refusal = outputRefusal(outputs,
                            {{"--config", plan.config_file},
                             {"--model-file", plan.step.model_file},
                             {"--batch-file", plan.step.batch_file}},
                            output.overwrite);
    const char* job = std::getenv("SLURM_JOB_ID");
    const LockHolder me{getpid(), cluster.host(), job != nullptr ? job : ""};
    for (std::size_t i = 0; i < outputs.size() && !refusal; ++i) {
      auto taken = OutputLock::take(outputs[i].path, me);
      if (auto* lock = std::get_if<OutputLock>(&taken)) {
        locks.push_back(std::move(*lock));
      } else {
        refusal = fmt::format("{}: '{}' {}", outputs[i].option,
                              printable(outputs[i].path, kPathEcho), std::get<std::string>(taken));
      }
    }
  }
  cluster.requireAllOk(refusal);
  return locks;
}

AssignedDevice chooseDevice(const LaunchPlan& launch, const Cluster& cluster) {
  const auto assigned = assignDevice({launch.device, cluster.localRank(), cluster.localSize(),
                                      visibleCudaDevices(), launch.allow_gpu_sharing});
  const auto* error = std::get_if<std::string>(&assigned);
  cluster.requireAllOk(error ? std::optional<std::string>(*error) : std::nullopt);
  const AssignedDevice device = std::get<AssignedDevice>(assigned);
  // NCCL on some ranks and MPI on others would never meet in a collective.
  const std::vector<std::uint64_t> kinds = cluster.allgather(device.cuda ? 1 : 0);
  if (std::adjacent_find(kinds.begin(), kinds.end(), std::not_equal_to<>()) != kinds.end()) {
    throw StartupRefused(
        "some ranks have a GPU and some do not; pass --device cpu to run all on CPUs",
        cluster.rank() == 0);
  }
  return device;
}

RankGroups formGroups(const CollectivesPlan& plan, const Cluster& cluster) {
  auto groups = resolveGroups(plan.groups, plan.group_mode, cluster.hosts());
  const auto* error = std::get_if<std::string>(&groups);
  cluster.requireAllOk(error ? std::optional<std::string>(*error) : std::nullopt);
  return std::get<RankGroups>(std::move(groups));
}

MemoryBudget agreeBudget(const Device& device, const Cluster& cluster, RankAgreement& agreement) {
  constexpr auto kUnknown = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  const auto least = [&agreement](std::uint64_t mine) {
    return static_cast<std::uint64_t>(-agreement.maxOverRanks(-static_cast<std::int64_t>(mine)));
  };
  const std::optional<std::uint64_t> host = availableHostMemory();
  // Read after the device is opened, so that a GPU rank's CUDA context is counted.
  const std::vector<std::uint64_t> held = cluster.allgather(heldHostMemory().value_or(0));
  NodeMemory node{0, host.value_or(0), 0, 0};
  for (std::size_t r = 0; r < held.size(); ++r) {
    if (cluster.hosts()[r] != cluster.host()) continue;
    ++node.ranks;
    node.held += held[r];
    node.base += std::max(held[r], kRankBaseBytes);
  }
  cluster.requireAllOk(host ? ranksRefusal(node, cluster.host()) : std::nullopt);
  const std::uint64_t device_free = least(device.isCuda() ? freeDeviceMemory() : kUnknown);
  const std::uint64_t host_share = least(host ? caseShare(node) : kUnknown);
  MemoryBudget budget;
  if (device_free != kUnknown) budget.device_free = device_free;
  if (host_share != kUnknown) budget.host_available = host_share;
  return budget;
}

}  // namespace splitstep
