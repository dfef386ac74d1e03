#include "startup/StartupChecks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <variant>

#include "cluster/PlanAgreement.hpp"
#include "device/Device.hpp"
#include "device/FreeMemory.hpp"
#include "meta/BuildInfo.hpp"
#include "options/OptionValue.hpp"
#include "report/AtomicFile.hpp"

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
}

void requireWritableOutputs(const OutputPlan& output, const Cluster& cluster) {
  // Only rank 0 writes files, so only rank 0 can tell whether it can; it tells before the run,
  // not after it.
  std::optional<std::string> refusal;
  if (cluster.rank() == 0) {
    for (const auto& [option, path] :
         {std::pair{"--json", output.json_path}, std::pair{"--csv", output.csv_path},
          std::pair{"--trace", output.trace_path}}) {
      if (path.empty()) continue;
      if (const auto why = whyNotWritable(path)) {
        refusal = fmt::format("{}: '{}' {}", option, printable(path, kPathEcho), *why);
        break;
      }
    }
  }
  cluster.requireAllOk(refusal);
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
  const std::uint64_t device_free = least(device.isCuda() ? freeDeviceMemory() : kUnknown);
  const std::uint64_t host_share =
      least(host ? *host / static_cast<std::uint64_t>(cluster.localSize()) : kUnknown);
  MemoryBudget budget;
  if (device_free != kUnknown) budget.device_free = device_free;
  if (host_share != kUnknown) budget.host_available = host_share;
  return budget;
}

}  // namespace splitstep
