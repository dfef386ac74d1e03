#include "startup/RunParts.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cases/CaseCatalogue.hpp"
#include "cluster/PlanAgreement.hpp"
#include "cluster/RankGroups.hpp"
#include "collect/Collector.hpp"
#include "collect/SampleCodec.hpp"
#include "comm/MpiCommunicator.hpp"
#include "comm/NcclCallReader.hpp"
#include "comm/NcclCommunicator.hpp"
#include "device/GpuTopology.hpp"
#include "meta/BuildInfo.hpp"
#include "meta/Environment.hpp"
#include "meta/RankLinks.hpp"
#include "startup/StartupChecks.hpp"
#include "suites/Suite.hpp"

namespace splitstep {

namespace {

// NCCL's communicator, with splitstep's profiler plugin where the plan asks for NCCL's choices:
// NCCL loads it when it makes its first communicator in this process.
std::unique_ptr<Communicator> openNccl(const CollectivesPlan& plan, const Cluster& cluster,
                                       Watchdog& watchdog, std::vector<std::string>& notes) {
  std::optional<std::string> profiler;
  if (plan.nccl_algorithms) {
    profiler = ncclProfilerBesideProgram();
    if (std::optional<std::string> why_not = requestNcclProfiler(*profiler)) {
      notes.push_back(*why_not);
      profiler.reset();
    }
  }
  auto nccl = std::make_unique<NcclCommunicator>(cluster.comm(), watchdog);
  if (profiler) {
    if (std::shared_ptr<const NcclCallReader> calls = NcclCallReader::ofLoaded(*profiler)) {
      nccl->readChoicesFrom(std::move(calls));
    } else {
      notes.push_back(fmt::format(
          "NCCL's algorithms are not shown: NCCL did not load its profiler plugin {} (profiler "
          "API v5 needs NCCL 2.28 or later)",
          *profiler));
    }
  }
  return nccl;
}

}  // namespace

std::vector<std::unique_ptr<Communicator>> openCommunicators(const CollectivesPlan& plan,
                                                             const Device& device,
                                                             const Cluster& cluster,
                                                             Watchdog& watchdog,
                                                             std::vector<std::string>& notes) {
  std::vector<Backend> backends = plan.backends;
  if (backends.empty()) backends = {device.isCuda() ? Backend::Nccl : Backend::Mpi};
  std::vector<std::unique_ptr<Communicator>> comms;
  for (Backend backend : backends) {
    if (backend == Backend::Nccl && !device.isCuda()) {
      notes.push_back("nccl needs a GPU on every rank; the collectives run on mpi only");
      backend = Backend::Mpi;
      if (std::find(backends.begin(), backends.end(), Backend::Mpi) != backends.end()) continue;
    }
    if (backend == Backend::Nccl) {
      comms.push_back(openNccl(plan, cluster, watchdog, notes));
    } else {
      const bool device_buffers = device.isCuda() && mpiIsCudaAware();
      if (device.isCuda() && !device_buffers) {
        notes.push_back("this MPI is not CUDA-aware: mpi collectives move host buffers");
      }
      comms.push_back(std::make_unique<MpiCommunicator>(cluster.comm(), watchdog, device_buffers));
    }
  }
  return comms;
}

std::unique_ptr<TelemetrySampler> startTelemetry(const TelemetryPlan& plan, const Device& device,
                                                 const Cluster& cluster,
                                                 std::vector<std::string>& notes) {
  if (!plan.enabled) return nullptr;
  std::string why_not;
  std::vector<std::unique_ptr<TelemetrySource>> sources = device.telemetrySources(why_not);
  std::unique_ptr<TelemetrySampler> sampler;
  if (!sources.empty()) {
    sampler = std::make_unique<TelemetrySampler>(std::move(sources), plan.interval);
  }
  const std::vector<std::uint64_t> sampling = cluster.allgather(sampler ? 1 : 0);
  std::vector<int> without;
  for (std::size_t r = 0; r < sampling.size(); ++r) {
    if (sampling[r] == 0) without.push_back(static_cast<int>(r));
  }
  if (without.size() == sampling.size()) {
    notes.push_back("telemetry: nothing to read (" + why_not + ")");
  } else if (!without.empty()) {
    notes.push_back(
        fmt::format("telemetry: not read on rank(s) {} (NVML cannot be loaded there or "
                    "does not know the GPU)",
                    fmt::join(without, ", ")));
  }
  return sampler;
}

std::vector<RankInfo> gatherRankInfo(const Device& device, const Cluster& cluster,
                                     Watchdog& watchdog) {
  RankInfo mine{cluster.rank(), cluster.host(), cluster.localRank(), device.label(), device.name()};
  mine.node_index = nodeIndices(cluster.hosts()).at(static_cast<std::size_t>(cluster.rank()));
  mine.pci_bus_id = device.pciBusId();
  mine.uuid = device.uuid();
  if (!mine.pci_bus_id.empty()) mine.gpu_links = gpuLinksFrom(mine.pci_bus_id);
  std::vector<RankInfo> all;
  for (const std::string& payload : gatherToRoot(encodeRankInfo(mine), cluster.comm(), watchdog)) {
    all.push_back(decodeRankInfo(payload));
  }
  return all;
}

void openRunParts(RunParts& parts, const RunPlan& plan, const Cluster& cluster, Watchdog& watchdog,
                  RunContext& context) {
  watchdog.setOperation("opening the device");
  parts.device = openDevice(chooseDevice(plan.launch, cluster), watchdog);
  // The environment as launched: before NCCL_PROFILER_PLUGIN is set for NCCL (openNccl).
  describeEnvironment(cluster, context);
  if (std::any_of(plan.suites.begin(), plan.suites.end(), usesCommunicators)) {
    watchdog.setOperation("opening the communicators");
    parts.comms =
        openCommunicators(plan.collectives, *parts.device, cluster, watchdog, context.notes);
  }
  watchdog.setOperation("gathering the ranks' devices");
  context.ranks = gatherRankInfo(*parts.device, cluster, watchdog);
  context.gpu_links = linksBetweenRanks(context.ranks);
  parts.sampler = startTelemetry(plan.telemetry, *parts.device, cluster, context.notes);
  const bool tracing = plan.output.timelines;
  // Spans are recorded for the trace, and to attribute telemetry readings to cases and phases.
  parts.timeline = Timeline(tracing || parts.sampler != nullptr, tracing);
  if (tracing) {
    watchdog.setOperation("measuring the ranks' clocks against rank 0's");
    parts.clock_at_start = measureClockOffset(cluster.comm(), watchdog);
  }
  parts.agreement.emplace(cluster.comm(), watchdog);
}

void describeRun(const RunPlan& plan, const std::string& command_line, RunContext& context) {
  context.versions = collectVersions();
  context.command_line = command_line;
  context.plan_hash = fmt::format("{:016x}", planHash(plan, buildId()));
  context.plan = plan.entries();
  context.measure = plan.measure;
  context.suite_families = suiteFamilies(plan.suites);
  context.collectives = collectiveNames();
}

void describeEnvironment(const Cluster& cluster, RunContext& context) {
  const EnvironmentList all = processEnvironment();
  context.job = jobInfo(all);
  context.environment = launchEnvironment(all);
  const std::vector<std::uint64_t> hashes = cluster.allgather(environmentHash(context.environment));
  for (std::size_t r = 1; r < hashes.size(); ++r) {
    if (hashes[r] != hashes.front()) context.environment_differs.push_back(static_cast<int>(r));
  }
}

}  // namespace splitstep
