#include "App.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <utility>
#include <variant>

#include "analysis/CaseResult.hpp"
#include "analysis/CollectiveAnalysis.hpp"
#include "analysis/GroupAnalysis.hpp"
#include "analysis/StepAnalysis.hpp"
#include "cluster/Cluster.hpp"
#include "cluster/LaunchCheck.hpp"
#include "cluster/MpiAgreement.hpp"
#include "cluster/PlanAgreement.hpp"
#include "cluster/RankGroups.hpp"
#include "collect/Collector.hpp"
#include "collect/SampleCodec.hpp"
#include "comm/MpiCommunicator.hpp"
#include "comm/NcclCommunicator.hpp"
#include "device/Device.hpp"
#include "device/DeviceAssignment.hpp"
#include "device/GpuTopology.hpp"
#include "meta/BuildInfo.hpp"
#include "meta/Environment.hpp"
#include "meta/RankLinks.hpp"
#include "meta/RunContext.hpp"
#include "report/ConsoleReporter.hpp"
#include "report/JsonReporter.hpp"
#include "report/TerminalProgress.hpp"
#include "suites/Suite.hpp"

namespace splitstep {
namespace {

void requireSamePlan(const RunPlan& plan, const Cluster& cluster) {
  const std::vector<std::uint64_t> hashes = cluster.allgather(planHash(plan, buildId()));
  if (auto mismatch = describePlanMismatch(hashes, cluster.hosts())) {
    throw StartupRefused(*mismatch, cluster.rank() == 0);
  }
}

// Only rank 0 writes files, so only rank 0 can tell whether it can.
std::optional<std::string> checkOutputs(const OutputPlan& output, const Cluster& cluster) {
  if (cluster.rank() != 0 || output.json_path.empty()) return std::nullopt;
  const std::filesystem::path parent = std::filesystem::absolute(output.json_path).parent_path();
  if (!std::filesystem::is_directory(parent)) {
    return fmt::format("--json: directory '{}' does not exist", parent.string());
  }
  return std::nullopt;
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

// The backends the collective suites compare. NCCL needs a GPU on every rank (chooseDevice
// made them all alike); where there is none, MPI runs alone and the report says so.
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
      comms.push_back(std::make_unique<NcclCommunicator>(cluster.comm(), watchdog));
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

// --groups against this launch: every rank resolves the same groups from the same plan and
// host names, or refuses the same way.
RankGroups formGroups(const CollectivesPlan& plan, const Cluster& cluster) {
  auto groups = resolveGroups(plan.groups, plan.group_mode, cluster.hosts());
  const auto* error = std::get_if<std::string>(&groups);
  cluster.requireAllOk(error ? std::optional<std::string>(*error) : std::nullopt);
  return std::get<RankGroups>(std::move(groups));
}

std::vector<RankInfo> gatherRankInfo(const Device& device, const Cluster& cluster) {
  RankInfo mine{cluster.rank(), cluster.host(), cluster.localRank(), device.label(), device.name()};
  mine.node_index = nodeIndices(cluster.hosts()).at(static_cast<std::size_t>(cluster.rank()));
  mine.pci_bus_id = device.pciBusId();
  mine.uuid = device.uuid();
  if (!mine.pci_bus_id.empty()) mine.gpu_links = gpuLinksFrom(mine.pci_bus_id);
  std::vector<RankInfo> all;
  for (const std::string& payload : gatherToRoot(encodeRankInfo(mine), cluster.comm())) {
    all.push_back(decodeRankInfo(payload));
  }
  return all;
}

// Collective: rank 0's launch environment, and the ranks whose own differs from it.
void describeEnvironment(const Cluster& cluster, RunContext& context) {
  const EnvironmentList all = processEnvironment();
  context.job = jobInfo(all);
  context.environment = launchEnvironment(all);
  const std::vector<std::uint64_t> hashes = cluster.allgather(environmentHash(context.environment));
  for (std::size_t r = 1; r < hashes.size(); ++r) {
    if (hashes[r] != hashes.front()) context.environment_differs.push_back(static_cast<int>(r));
  }
}

void report(const RunContext& context, const std::vector<std::string>& payloads,
            const OutputPlan& output, const ProjectionPlan& projection) {
  std::vector<std::vector<Sample>> by_rank;
  for (const std::string& payload : payloads) by_rank.push_back(decodeSamples(payload));

  ReporterMultiplex reporters;
  reporters.add(std::make_unique<ConsoleReporter>(std::cout));
  if (!output.json_path.empty()) reporters.add(std::make_unique<JsonReporter>(output.json_path));
  reporters.reportContext(context);
  const std::vector<CaseResult> results = summarizeCases(by_rank);
  for (const CaseResult& result : results) reporters.reportCase(result);
  for (const DerivedResult& derived : deriveStepFigures(results)) reporters.reportDerived(derived);
  for (const DerivedResult& derived : deriveStepProjection(results, projection)) {
    reporters.reportDerived(derived);
  }
  for (const DerivedResult& derived : deriveGroupFigures(results, context.ranks)) {
    reporters.reportDerived(derived);
  }
  for (const DerivedResult& derived : deriveCollectiveFigures(results, projection)) {
    reporters.reportDerived(derived);
  }
  reporters.finalize();
  if (!output.json_path.empty()) std::cout << "results written to " << output.json_path << '\n';
}

}  // namespace

int runApp(const Invocation& invocation, Cluster& cluster) {
  cluster.requireAllOk(invocation.usage_error);
  const ParsedCommand& command = invocation.command;
  if (command.action == ParsedCommand::Action::Help) {
    if (cluster.rank() == 0) std::cout << command.help;
    return 0;
  }
  if (command.action == ParsedCommand::Action::Version) {
    if (cluster.rank() == 0) std::cout << "splitstep " << buildId() << '\n';
    return 0;
  }
  const RunPlan& plan = command.plan;
  // Wall time of each part of the run, for the report to say where it went.
  auto mark = std::chrono::steady_clock::now();
  const auto lap = [&mark] {
    const auto now = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(now - std::exchange(mark, now)).count();
  };
  cluster.requireAllOk(checkLaunchSize(LauncherEnvironment::fromProcess(), cluster.size()));
  requireSamePlan(plan, cluster);
  cluster.requireAllOk(checkOutputs(plan.output, cluster));
  RankGroups groups = formGroups(plan.collectives, cluster);

  RunContext context;
  context.started_utc = utcNow();
  // Declared before everything that waits under it, so that it outlives them.
  Watchdog watchdog(plan.launch.timeout);
  const std::unique_ptr<Device> device = openDevice(chooseDevice(plan.launch, cluster), watchdog);
  std::vector<std::unique_ptr<Communicator>> comms;
  if (std::any_of(plan.suites.begin(), plan.suites.end(), usesCommunicators)) {
    comms = openCommunicators(plan.collectives, *device, cluster, watchdog, context.notes);
  }
  context.ranks = gatherRankInfo(*device, cluster);
  context.gpu_links = linksBetweenRanks(context.ranks);
  describeEnvironment(cluster, context);

  MpiAgreement agreement(cluster.comm(), watchdog);
  SuiteContext suite_context{*device,          {},
                             agreement,        watchdog,
                             plan.measure,     cluster.rank(),
                             cluster.size(),   cluster.localSize(),
                             std::move(groups)};
  for (const auto& comm : comms) {
    suite_context.communicators.push_back(comm.get());
    if (!context.backend.empty()) context.backend += ',';
    context.backend += comm->backend();
  }
  std::vector<std::unique_ptr<Suite>> suites;
  for (const std::string& name : plan.suites) suites.push_back(makeSuite(name, plan));
  // Every suite says before any runs whether it can, so an infeasible plan ends in seconds.
  for (const auto& suite : suites) cluster.requireAllOk(suite->preflight(suite_context));
  // Rank 0 shows where the run stands, on a terminal only: a log file keeps the report alone.
  std::unique_ptr<Progress> progress;
  if (cluster.rank() == 0 && !plan.output.quiet && TerminalProgress::stderrReachesTerminal()) {
    progress = std::make_unique<TerminalProgress>(std::cerr);
    std::size_t cases = 0;
    for (const auto& suite : suites) cases += suite->caseCount(suite_context);
    progress->start(cases);
    suite_context.progress = progress.get();
  }
  std::vector<Sample> samples;
  context.wall.start_up = lap();
  for (const auto& suite : suites) {
    std::vector<Sample> produced = suite->run(suite_context);
    samples.insert(samples.end(), produced.begin(), produced.end());
    context.wall.suites.emplace_back(suite->name(), lap());
  }
  if (progress) progress->finish();
  const std::vector<std::string> payloads = gatherToRoot(encodeSamples(samples), cluster.comm());
  context.wall.gather = lap();
  if (cluster.rank() != 0) return 0;

  context.versions = collectVersions();
  context.command_line = invocation.command_line;
  context.plan_hash = fmt::format("{:016x}", planHash(plan, buildId()));
  context.plan = plan.entries();
  context.measure = plan.measure;
  report(context, payloads, plan.output, plan.projection);
  return 0;
}

}  // namespace splitstep
