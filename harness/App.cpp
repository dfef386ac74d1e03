#include "App.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <limits>
#include <thread>
#include <utility>
#include <variant>

#include "analysis/CaseResult.hpp"
#include "analysis/CollectiveAnalysis.hpp"
#include "analysis/GroupAnalysis.hpp"
#include "analysis/StepAnalysis.hpp"
#include "analysis/TelemetryAnalysis.hpp"
#include "cases/CaseCatalogue.hpp"
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
#include "device/FreeMemory.hpp"
#include "device/GpuTopology.hpp"
#include "fault/FaultChannel.hpp"
#include "fault/FaultReasons.hpp"
#include "fault/ProcessState.hpp"
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

// Paths are echoed up to this length, escaped, in refusals.
constexpr std::size_t kPathEcho = 200;
// A rank stopped this long just before a roll call is the one the others waited for; a launcher
// continues every rank (SIGCONT) before it ends a job, which stops none for long.
constexpr double kLongStop = 0.5;

using SteadyTime = std::chrono::steady_clock::time_point;

void requireSamePlan(const RunPlan& plan, const Cluster& cluster) {
  const std::vector<std::uint64_t> hashes = cluster.allgather(planHash(plan, buildId()));
  if (auto mismatch = describePlanMismatch(hashes, cluster.hosts())) {
    throw StartupRefused(*mismatch, cluster.rank() == 0);
  }
}

// Only rank 0 writes files, so only rank 0 can tell whether it can; it tells before the run,
// not after it.
std::optional<std::string> checkOutputs(const OutputPlan& output, const Cluster& cluster) {
  if (cluster.rank() != 0) return std::nullopt;
  for (const auto& [option, path] :
       {std::pair{"--json", output.json_path}, std::pair{"--csv", output.csv_path},
        std::pair{"--trace", output.trace_path}}) {
    if (path.empty()) continue;
    if (const auto why = whyNotWritable(path)) {
      return fmt::format("{}: '{}' {}", option, printable(path, kPathEcho), *why);
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

// The least over ranks of the device memory each has free and the host memory each may take
// (what the node has available, shared by the node's ranks): every rank judges cases alike.
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

RankPlace placeOf(const Cluster& cluster, int rank) {
  const auto r = static_cast<std::size_t>(rank);
  return {cluster.hosts()[r], cluster.pids()[r]};
}

// A rank as a culprit is named: with its state where it runs on this host.
std::string describePeer(const Cluster& cluster, int rank) {
  const RankPlace place = placeOf(cluster, rank);
  const std::string_view state =
      place.host == cluster.host() ? describe(processState(place.pid)) : std::string_view();
  return describeRank(rank, place, state);
}

// The ranks of this host found stopped or gone: after a signal, who may have caused it.
std::vector<std::string> peersNotAlive(const Cluster& cluster) {
  std::vector<std::string> found;
  for (int r = 0; r < cluster.size(); ++r) {
    const RankPlace place = placeOf(cluster, r);
    if (r == cluster.rank() || place.host != cluster.host()) continue;
    if (const ProcessState state = processState(place.pid); state != ProcessState::Alive) {
      found.push_back(describeRank(r, place, describe(state)));
    }
  }
  return found;
}

// What a hung rank does, for the tests of the fault handling (--test-stall-rank): it stops
// answering anything, for good.
[[noreturn]] void stallForever() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(24));
}

// Gathers each batch of finished cases from every rank to rank 0 as a suite publishes it; rank 0
// summarises the batch with the earlier ones and hands its cases to the reporters at once.
class StreamingReport final : public CaseSink {
 public:
  StreamingReport(const Cluster& cluster, Watchdog& watchdog, RunEnding& ending,
                  Reporter* reporters, const LaunchPlan& launch)
      : cluster_(cluster),
        watchdog_(watchdog),
        ending_(ending),
        reporters_(reporters),
        launch_(launch) {}

  // Rank 0's progress line, erased before a case is printed; nullptr: none is shown.
  void setProgress(Progress* progress) { progress_ = progress; }

  void publish(std::vector<Sample> samples) override {
    watchdog_.setOperation(fmt::format("gathering the results of {} {}", samples.front().suite,
                                       samples.front().case_name));
    const std::vector<std::string> payloads =
        gatherToRoot(encodeSamples(samples), cluster_.comm(), watchdog_);
    if (reporters_ != nullptr) {
      std::vector<std::vector<Sample>> by_rank;
      for (const std::string& payload : payloads) by_rank.push_back(decodeSamples(payload));
      const std::vector<CaseResult> results = summarizer_.add(by_rank);
      const std::lock_guard lock(ending_.reportMutex());
      if (progress_ != nullptr) progress_->clear();
      for (const CaseResult& result : results) reporters_->reportCase(result);
      results_.insert(results_.end(), results.begin(), results.end());
    }
    ++batches_;
    stallIfAsked();
  }

  // --test-stall-rank: this rank stops once --test-stall-after batches were gathered.
  void stallIfAsked() const {
    if (launch_.stall_rank == cluster_.rank() && batches_ >= launch_.stall_after) stallForever();
  }

  // Rank 0: every case so far, for the figures derived from several.
  const std::vector<CaseResult>& results() const { return results_; }

 private:
  const Cluster& cluster_;
  Watchdog& watchdog_;
  RunEnding& ending_;
  Reporter* reporters_;  // rank 0's; null elsewhere
  const LaunchPlan& launch_;
  Progress* progress_ = nullptr;
  CaseSummarizer summarizer_;
  std::vector<CaseResult> results_;
  int batches_ = 0;
};

// What a rank needs to end the run after a fault.
struct FaultScene {
  const Cluster& cluster;
  FaultChannel& faults;
  RunEnding& ending;
  const Watchdog& watchdog;
  const SignalWatch& signals;
  double grace;  // how long to wait for other ranks' answers and farewells
};

// Open MPI's daemon ends a job with SIGTERM and SIGKILLs its ranks still running once its grace
// period is over, or as soon as one of them exits, whichever comes first: a rank that exits at
// once after its SIGTERM gets rank 0 of its host killed before its results are written. Such a
// rank waits, up to the grace, for rank 0 to end first. Ranks of other hosts have other daemons.
void outliveRankZero(const FaultScene& scene) {
  const Cluster& cluster = scene.cluster;
  const RankPlace zero = placeOf(cluster, 0);
  if (cluster.rank() == 0 || zero.host != cluster.host()) return;
  const auto start = std::chrono::steady_clock::now();
  while (processState(zero.pid) == ProcessState::Alive &&
         std::chrono::steady_clock::now() - start < std::chrono::duration<double>(scene.grace)) {
    scene.faults.flush(0.001);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Ends the run after `error`: names the culprit (a timeout asks every rank what it is doing;
// the silent ones are to blame), tells every other rank, has rank 0 write what it has with the
// reason, prints one line, and ends the job, without another collective: a peer may be dead.
[[noreturn]] void endAfterFault(const std::exception& error, const FaultScene& scene) {
  const Cluster& cluster = scene.cluster;
  const int rank = cluster.rank();
  std::string reason;
  std::string line;
  std::vector<int> culprits;
  std::vector<int> silent;  // ranks known not to answer anything
  int status = 1;
  if (const auto* timeout = dynamic_cast<const TimeoutError*>(&error)) {
    const FaultChannel::Answers answers =
        scene.faults.rollCall(scene.grace, "ending after a timeout");
    std::vector<std::string> blamed;
    for (int r = 0; r < cluster.size(); ++r) {
      const auto answer = answers.answers.find(r);
      if (std::find(answers.silent.begin(), answers.silent.end(), r) != answers.silent.end()) {
        blamed.push_back(silentRank(describePeer(cluster, r)));
      } else if (answer != answers.answers.end() && answer->second.stopped_for >= kLongStop) {
        blamed.push_back(stoppedRank(describePeer(cluster, r), answer->second.stopped_for));
      } else {
        continue;
      }
      culprits.push_back(r);
    }
    silent = answers.silent;
    reason = line = timeoutReason(*timeout, rank, blamed);
    scene.faults.giveUp(reason, culprits, scene.grace);
  } else if (const auto* peer = dynamic_cast<const PeerGaveUp*>(&error)) {
    reason = peer->what();
    culprits = peer->culprits();
    silent = culprits;  // as far as this rank knows
    const bool late = std::find(culprits.begin(), culprits.end(), rank) != culprits.end();
    line = late ? lateReason(reason) : fmt::format("rank {} gave up: {}", peer->from(), reason);
  } else if (const auto* signal = dynamic_cast<const Interrupted*>(&error)) {
    // The launcher ends the job within a second of its SIGTERM: no roll call, and the results
    // are written before the others are told, which may take the last 0.1 s. The other ranks
    // say farewell (to a rank 0 that heard another's notice first) and leave after rank 0, below.
    status = 128 + signal->signal();
    reason = line =
        interruptReason(signal->signal(), scene.watchdog.operation(), peersNotAlive(cluster));
    scene.ending.end(reason, line);
    scene.faults.giveUp(reason, {}, 0.1);
    if (rank == 0) std::_Exit(status);
  } else {
    culprits = {rank};
    const std::string operation = scene.watchdog.operation();
    reason = failureReason(describeRank(rank, placeOf(cluster, rank)), operation, error.what());
    line = fmt::format("failed during {}: {}", operation, firstLine(error.what()));
    scene.faults.giveUp(reason, culprits, scene.grace);
  }
  scene.ending.end(reason, line);
  if (rank == 0) {
    // Rank 0 ends the job once the others could print their line; a rank that did not answer
    // will not.
    std::vector<int> others;
    for (int r = 1; r < cluster.size(); ++r) {
      if (std::find(silent.begin(), silent.end(), r) == silent.end()) others.push_back(r);
    }
    scene.faults.awaitFarewells(others, scene.grace);
  } else {
    scene.faults.sayFarewell();
    // Rank 0 ends the job; should it be the one that stalled, this rank does, a while later.
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start <
           std::chrono::duration<double>(4 * scene.grace)) {
      scene.faults.flush(0.05);
      if (scene.signals.received() != 0) {
        outliveRankZero(scene);
        std::_Exit(status);
      }
    }
  }
  MPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);
}

// The run from the device on, its parts kept alive until the process ends: after a fault,
// the run ends while a collective may still be stuck in them, and destroying them could block.
class Run {
 public:
  Run(const RunPlan& plan, const Invocation& invocation, Cluster& cluster, Watchdog& watchdog,
      RunEnding& ending, RankGroups groups, SteadyTime started)
      : plan_(plan),
        invocation_(invocation),
        cluster_(cluster),
        watchdog_(watchdog),
        ending_(ending),
        groups_(std::move(groups)),
        lap_start_(started),
        recording_thread_(std::this_thread::get_id()),
        stream_(cluster, watchdog, ending, cluster.rank() == 0 ? &reporters_ : nullptr,
                plan.launch) {
    context_.started_utc = utcNow();
  }

  // The suites from start to end on every rank, rank 0 reporting each case as it comes.
  int execute();

 private:
  bool tracing() const { return !plan_.output.trace_path.empty(); }
  // Wall seconds since the last lap (or the start of the run).
  double lap();
  void open();
  void startProgress(const std::vector<std::unique_ptr<Suite>>& suites,
                     const SuiteContext& suite_context);
  void startReports();
  // Collective: the timelines of every rank, on rank 0's clock (rank 0 holds them).
  std::vector<std::string> gatherTimelines();
  // Rank 0, once every suite ended: the figures derived from several cases, the files, the trace.
  void finishReports(const std::vector<std::string>& timelines);
  // Rank 0, when the run ends early on the thread that records spans: its own timeline, since
  // the other ranks' can no longer be gathered.
  void writeOwnTrace();

  const RunPlan& plan_;
  const Invocation& invocation_;
  Cluster& cluster_;
  Watchdog& watchdog_;
  RunEnding& ending_;
  RankGroups groups_;
  SteadyTime lap_start_;
  std::thread::id recording_thread_;  // the one that records spans on timeline_
  RunContext context_;
  std::unique_ptr<Device> device_;
  std::vector<std::unique_ptr<Communicator>> comms_;
  std::unique_ptr<TelemetrySampler> sampler_;
  Timeline timeline_;
  ClockOffset clock_at_start_;
  std::optional<MpiAgreement> agreement_;
  std::unique_ptr<Progress> progress_;  // rank 0's, on a terminal
  ReporterMultiplex reporters_;         // rank 0's
  StreamingReport stream_;
};

double Run::lap() {
  const auto now = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(now - std::exchange(lap_start_, now)).count();
}

void Run::open() {
  watchdog_.setOperation("opening the device");
  device_ = openDevice(chooseDevice(plan_.launch, cluster_), watchdog_);
  if (std::any_of(plan_.suites.begin(), plan_.suites.end(), usesCommunicators)) {
    watchdog_.setOperation("opening the communicators");
    comms_ = openCommunicators(plan_.collectives, *device_, cluster_, watchdog_, context_.notes);
  }
  watchdog_.setOperation("gathering the ranks' devices");
  context_.ranks = gatherRankInfo(*device_, cluster_, watchdog_);
  context_.gpu_links = linksBetweenRanks(context_.ranks);
  describeEnvironment(cluster_, context_);
  sampler_ = startTelemetry(plan_.telemetry, *device_, cluster_, context_.notes);
  // Spans are recorded for the trace, and to attribute telemetry readings to cases and phases.
  timeline_ = Timeline(tracing() || sampler_ != nullptr, tracing());
  if (tracing()) {
    watchdog_.setOperation("measuring the ranks' clocks against rank 0's");
    clock_at_start_ = measureClockOffset(cluster_.comm(), watchdog_);
  }
  agreement_.emplace(cluster_.comm(), watchdog_);
}

void Run::startProgress(const std::vector<std::unique_ptr<Suite>>& suites,
                        const SuiteContext& suite_context) {
  // Rank 0 shows where the run stands, on a terminal only: a log file keeps the report alone.
  if (cluster_.rank() != 0 || plan_.output.quiet || !TerminalProgress::stderrReachesTerminal()) {
    return;
  }
  progress_ = std::make_unique<TerminalProgress>(std::cerr);
  std::size_t cases = 0;
  for (const auto& suite : suites) cases += suite->caseCount(suite_context);
  progress_->start(cases);
  stream_.setProgress(progress_.get());
}

void Run::startReports() {
  ending_.setEarlyReport([this](const std::string& reason) {
    if (progress_) progress_->clear();
    reporters_.endEarly(reason);
    if (cluster_.rank() == 0 && tracing() && std::this_thread::get_id() == recording_thread_) {
      writeOwnTrace();
    }
  });
  if (cluster_.rank() != 0) return;
  context_.versions = collectVersions();
  context_.command_line = invocation_.command_line;
  context_.plan_hash = fmt::format("{:016x}", planHash(plan_, buildId()));
  context_.plan = plan_.entries();
  context_.measure = plan_.measure;
  context_.suite_families = suiteFamilies(plan_.suites);
  context_.collectives = collectiveNames();
  // The files first: when a launcher ends the job it kills what is still running after a short
  // grace period, and the files are what must be complete by then (reporters run in this order).
  if (!plan_.output.json_path.empty()) {
    reporters_.add(std::make_unique<JsonReporter>(plan_.output.json_path));
  }
  if (!plan_.output.csv_path.empty()) {
    reporters_.add(std::make_unique<CsvReporter>(plan_.output.csv_path));
  }
  reporters_.add(std::make_unique<ConsoleReporter>(std::cout));
  const std::lock_guard lock(ending_.reportMutex());
  reporters_.reportContext(context_);
}

std::vector<std::string> Run::gatherTimelines() {
  std::vector<TelemetryReading> readings;
  if (sampler_) readings = sampler_->all();
  watchdog_.setOperation("gathering the ranks' timelines for the trace");
  const ClockOffset clock_at_end = measureClockOffset(cluster_.comm(), watchdog_);
  return gatherToRoot(
      encodeTimeline(rankTimeline(timeline_, std::move(readings), clock_at_start_, clock_at_end)),
      cluster_.comm(), watchdog_);
}

void Run::finishReports(const std::vector<std::string>& timelines) {
  const std::lock_guard lock(ending_.reportMutex());
  reporters_.reportWallTimes(context_.wall);
  // Figures derived from several cases, once all of them are in.
  const std::vector<CaseResult>& results = stream_.results();
  const ProjectionPlan& projection = plan_.projection;
  const auto report = [this](const std::vector<DerivedResult>& figures) {
    for (const DerivedResult& derived : figures) reporters_.reportDerived(derived);
  };
  report(deriveStepFigures(results));
  report(deriveStepProjection(results, projection));
  report(deriveGroupFigures(results, context_.ranks));
  report(deriveCollectiveFigures(results, projection));
  report(deriveStepTelemetry(results));
  reporters_.finalize();
  const OutputPlan& output = plan_.output;
  if (!output.json_path.empty()) std::cout << "results written to " << output.json_path << '\n';
  if (!output.csv_path.empty()) std::cout << "rows written to " << output.csv_path << '\n';
  if (tracing()) {
    std::vector<RankTimeline> decoded;
    double uncertainty = 0;
    for (const std::string& payload : timelines) {
      decoded.push_back(decodeTimeline(payload));
      uncertainty = std::max(uncertainty, decoded.back().clock_uncertainty);
    }
    writeFileAtomically(output.trace_path,
                        chromeTrace(context_.ranks, decoded, context_.command_line).dump());
    std::cout << fmt::format(
        "trace written to {} (ranks on rank 0's clock within {}; opens in ui.perfetto.dev)\n",
        output.trace_path, formatSeconds(uncertainty));
  }
  std::cout << std::flush;
}

void Run::writeOwnTrace() {
  if (context_.ranks.empty()) return;
  std::vector<TelemetryReading> readings;
  if (sampler_) readings = sampler_->all();
  // Rank 0's clock is the trace's: no offset to apply.
  const std::vector<RankTimeline> timelines = {
      rankTimeline(timeline_, std::move(readings), ClockOffset{}, ClockOffset{})};
  writeFileAtomically(
      plan_.output.trace_path,
      chromeTrace({context_.ranks.front()}, timelines, context_.command_line).dump());
  std::cout << fmt::format("trace of rank 0 alone written to {} (the run ended early)\n",
                           plan_.output.trace_path)
            << std::flush;
}

int Run::execute() {
  open();
  watchdog_.setOperation("agreeing on the memory every rank can spare");
  const MemoryBudget budget = agreeBudget(*device_, cluster_, *agreement_);
  SuiteContext suite_context{*device_,        {},
                             *agreement_,     watchdog_,
                             stream_,         plan_.measure,
                             cluster_.rank(), cluster_.size(),
                             groups_,         nullptr,
                             &timeline_,      sampler_.get(),
                             budget};
  for (const auto& comm : comms_) {
    suite_context.communicators.push_back(comm.get());
    if (!context_.backend.empty()) context_.backend += ',';
    context_.backend += comm->backend();
  }
  std::vector<std::unique_ptr<Suite>> suites;
  std::optional<std::string> refusal;
  for (const std::string& name : plan_.suites) {
    suites.push_back(makeSuite(name, plan_));
    if (!refusal) refusal = suites.back()->refusal(suite_context);
  }
  // Every suite says before any runs whether it can, so an infeasible plan ends in seconds.
  cluster_.requireAllOk(refusal);
  startProgress(suites, suite_context);
  suite_context.progress = progress_.get();

  context_.wall.start_up = lap();
  startReports();
  stream_.stallIfAsked();
  for (const auto& suite : suites) {
    // Until its first case names itself: a suite may build its workload first.
    watchdog_.setOperation(fmt::format("the {} suite", suite->name()));
    suite->run(suite_context);
    watchdog_.setOperation("between suites");
    const std::lock_guard lock(ending_.reportMutex());
    context_.wall.suites.emplace_back(suite->name(), lap());
    reporters_.reportWallTimes(context_.wall);
  }
  if (progress_) progress_->finish();
  // Nothing after the suites is worth reading; a trace keeps what was read.
  suite_context.telemetry = nullptr;
  std::vector<std::string> timelines;
  if (tracing()) timelines = gatherTimelines();
  sampler_.reset();
  context_.wall.gather = lap();
  if (cluster_.rank() == 0) finishReports(timelines);
  ending_.completed();
  return 0;
}

}  // namespace

int runApp(const Invocation& invocation, Cluster& cluster, RunEnding& ending,
           const SignalWatch& signals) {
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
  // The wall time of each part of the run is counted from here, for the report to say where it
  // went.
  const SteadyTime started = std::chrono::steady_clock::now();
  cluster.requireAllOk(checkLaunchSize(LauncherEnvironment::fromProcess(), cluster.size()));
  requireSamePlan(plan, cluster);
  cluster.requireAllOk(checkOutputs(plan.output, cluster));
  RankGroups groups = formGroups(plan.collectives, cluster);

  // Declared before everything that waits under it, so that it outlives them.
  Watchdog watchdog(plan.launch.timeout);
  // Its poll is the first check of every wait: a peer's notice wins over this rank's signal.
  FaultChannel faults(cluster.comm(), watchdog, [&watchdog, &signals, &plan] {
    return FaultChannel::Answer{
        watchdog.activity(),
        std::max(signals.recentStop(2 * plan.launch.timeout), watchdog.pausedInWait())};
  });
  const auto interrupt_check = watchdog.watch([&signals] { signals.check(); }, nullptr);
  ending.setInterruptReason([&watchdog, &cluster](int signal) {
    return interruptReason(signal, watchdog.operation(), peersNotAlive(cluster));
  });
  const FaultScene scene{cluster,  faults,  ending,
                         watchdog, signals, std::clamp(plan.launch.timeout / 4, 1.0, 10.0)};
  // A wait that fails ends the run where it stands, before anything is unwound.
  watchdog.setFailureHandler(
      [&scene](const std::exception& error) { endAfterFault(error, scene); });
  // Outside the try block, so that its parts are still there while the run ends after any
  // other failure.
  Run run(plan, invocation, cluster, watchdog, ending, std::move(groups), started);
  try {
    const int status = run.execute();
    ending.setInterruptReason(nullptr);
    return status;
  } catch (const StartupRefused&) {
    ending.setInterruptReason(nullptr);
    throw;
  } catch (const std::exception& error) {
    endAfterFault(error, scene);
  }
}

}  // namespace splitstep
