#include "App.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

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
#include "analysis/TelemetryAnalysis.hpp"
#include "cluster/ClockSync.hpp"
#include "cluster/Cluster.hpp"
#include "cluster/LaunchCheck.hpp"
#include "cluster/MpiAgreement.hpp"
#include "cluster/PlanAgreement.hpp"
#include "cluster/RankGroups.hpp"
#include "collect/Collector.hpp"
#include "collect/SampleCodec.hpp"
#include "collect/TimelineCodec.hpp"
#include "comm/MpiCommunicator.hpp"
#include "comm/NcclCommunicator.hpp"
#include "common/Units.hpp"
#include "device/Device.hpp"
#include "device/DeviceAssignment.hpp"
#include "device/GpuTopology.hpp"
#include "measure/Timeline.hpp"
#include "meta/BuildInfo.hpp"
#include "meta/Environment.hpp"
#include "meta/RankLinks.hpp"
#include "meta/RunContext.hpp"
#include "report/AtomicFile.hpp"
#include "report/ChromeTrace.hpp"
#include "report/ConsoleReporter.hpp"
#include "report/CsvReporter.hpp"
#include "report/JsonReporter.hpp"
#include "report/TerminalProgress.hpp"
#include "suites/Suite.hpp"
#include "telemetry/TelemetrySampler.hpp"

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
  if (cluster.rank() != 0) return std::nullopt;
  for (const auto& [option, path] :
       {std::pair{"--json", output.json_path}, std::pair{"--csv", output.csv_path},
        std::pair{"--trace", output.trace_path}}) {
    if (path.empty()) continue;
    const std::filesystem::path parent = std::filesystem::absolute(path).parent_path();
    if (!std::filesystem::is_directory(parent)) {
      return fmt::format("{}: directory '{}' does not exist", option, parent.string());
    }
  }
  return std::nullopt;
}

// The telemetry sampler of this rank's device, or nullptr (with the reason) where it has none.
// Rank 0 learns which ranks sample, for the run's notes.
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

// This rank's spans and readings on rank 0's clock, the drift between the two offset
// measurements interpolated.
RankTimeline rankTimeline(const Timeline& timeline, std::vector<TelemetryReading> readings,
                          const ClockOffset& start, const ClockOffset& end) {
  RankTimeline mine;
  const auto onRoot = [&](double t) { return onRootClock(t, start, end); };
  for (TimelineSpan span : timeline.spans()) {
    span.span = {onRoot(span.span.start), onRoot(span.span.end)};
    mine.spans.push_back(std::move(span));
  }
  for (TelemetryReading& reading : readings) reading.time = onRoot(reading.time);
  mine.readings = std::move(readings);
  mine.clock_offset = start.offset;
  mine.clock_uncertainty = std::max(start.uncertainty, end.uncertainty);
  return mine;
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
  if (!output.csv_path.empty()) reporters.add(std::make_unique<CsvReporter>(output.csv_path));
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
  for (const DerivedResult& derived : deriveStepTelemetry(results)) {
    reporters.reportDerived(derived);
  }
  reporters.finalize();
  if (!output.json_path.empty()) std::cout << "results written to " << output.json_path << '\n';
  if (!output.csv_path.empty()) std::cout << "rows written to " << output.csv_path << '\n';
}

void writeTrace(const RunContext& context, const std::vector<std::string>& payloads,
                const std::string& path) {
  std::vector<RankTimeline> timelines;
  double uncertainty = 0;
  for (const std::string& payload : payloads) {
    timelines.push_back(decodeTimeline(payload));
    uncertainty = std::max(uncertainty, timelines.back().clock_uncertainty);
  }
  writeFileAtomically(path, chromeTrace(context.ranks, timelines, context.command_line).dump());
  std::cout << fmt::format(
      "trace written to {} (ranks on rank 0's clock within {}; opens in ui.perfetto.dev)\n", path,
      formatSeconds(uncertainty));
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
  std::unique_ptr<TelemetrySampler> sampler =
      startTelemetry(plan.telemetry, *device, cluster, context.notes);
  const bool tracing = !plan.output.trace_path.empty();
  // Spans are recorded for the trace, and to attribute telemetry readings to cases and phases.
  Timeline timeline(tracing || sampler != nullptr, tracing);
  ClockOffset clock_at_start;
  if (tracing) clock_at_start = measureClockOffset(cluster.comm(), watchdog);

  MpiAgreement agreement(cluster.comm(), watchdog);
  SuiteContext suite_context{*device,           {},
                             agreement,         watchdog,
                             plan.measure,      cluster.rank(),
                             cluster.size(),    cluster.localSize(),
                             std::move(groups), nullptr,
                             &timeline,         sampler.get()};
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
  std::vector<TelemetryReading> readings;
  if (sampler && tracing) readings = sampler->all();
  suite_context.telemetry = nullptr;
  sampler.reset();  // nothing after the suites is worth reading
  const std::vector<std::string> payloads = gatherToRoot(encodeSamples(samples), cluster.comm());
  std::vector<std::string> timelines;
  if (tracing) {
    watchdog.setOperation("trace");
    const ClockOffset clock_at_end = measureClockOffset(cluster.comm(), watchdog);
    timelines = gatherToRoot(
        encodeTimeline(rankTimeline(timeline, std::move(readings), clock_at_start, clock_at_end)),
        cluster.comm());
  }
  context.wall.gather = lap();
  if (cluster.rank() != 0) return 0;

  context.versions = collectVersions();
  context.command_line = invocation.command_line;
  context.plan_hash = fmt::format("{:016x}", planHash(plan, buildId()));
  context.plan = plan.entries();
  context.measure = plan.measure;
  report(context, payloads, plan.output, plan.projection);
  if (tracing) writeTrace(context, timelines, plan.output.trace_path);
  return 0;
}

}  // namespace splitstep
