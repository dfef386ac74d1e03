#include "App.hpp"

#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <thread>
#include <utility>

#include "cluster/ClockSync.hpp"
#include "cluster/Cluster.hpp"
#include "cluster/LaunchCheck.hpp"
#include "collect/Collector.hpp"
#include "common/Units.hpp"
#include "derived/Analyses.hpp"
#include "derived/RunStatus.hpp"
#include "derived/Verdict.hpp"
#include "fault/FaultEnding.hpp"
#include "meta/BuildInfo.hpp"
#include "options/OptionValue.hpp"
#include "report/ReporterSet.hpp"
#include "report/StreamingReport.hpp"
#include "report/TerminalProgress.hpp"
#include "startup/RunParts.hpp"
#include "startup/StartupChecks.hpp"
#include "suites/Suite.hpp"

namespace splitstep {
namespace {

using SteadyTime = std::chrono::steady_clock::time_point;

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
  bool tracing() const { return plan_.output.timelines; }
  // Wall seconds since the last lap (or the start of the run).
  double lap();
  void startProgress(const std::vector<std::unique_ptr<Suite>>& suites,
                     const SuiteContext& suite_context);
  void startReports();
  // Rank 0, once every suite ended: the figures derived from several cases, the files, the trace.
  void finishReports(const std::vector<RankTimeline>& timelines);
  // Rank 0, once the reports are written: the status the measured cases earn, each reason on
  // stderr.
  int judgedStatus();
  // Rank 0, when the run ends early on the thread that records spans: its own timeline to the
  // outputs that draw timelines, since the other ranks' can no longer be gathered.
  void reportOwnTimeline();

  const RunPlan& plan_;
  const Invocation& invocation_;
  Cluster& cluster_;
  Watchdog& watchdog_;
  RunEnding& ending_;
  RankGroups groups_;
  SteadyTime lap_start_;
  std::thread::id recording_thread_;  // the one that records spans on the parts' timeline
  RunContext context_;
  RunParts parts_;
  std::unique_ptr<Progress> progress_;  // rank 0's, on a terminal
  ReporterMultiplex reporters_;         // rank 0's
  StreamingReport stream_;
};

double Run::lap() {
  const auto now = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(now - std::exchange(lap_start_, now)).count();
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
    if (cluster_.rank() == 0 && tracing() && std::this_thread::get_id() == recording_thread_) {
      reportOwnTimeline();
    }
    reporters_.endEarly(reason);
    std::cout << reporters_.written() << std::flush;
  });
  if (cluster_.rank() != 0) return;
  describeRun(plan_, invocation_.command_line, context_);
  context_.notes.insert(context_.notes.begin(), invocation_.notes.begin(), invocation_.notes.end());
  addReporters(reporters_, plan_.output, std::cout);
  const std::lock_guard lock(ending_.reportMutex());
  reporters_.reportContext(context_);
  stream_.startReports(context_.ranks);
}

void Run::finishReports(const std::vector<RankTimeline>& timelines) {
  const std::lock_guard lock(ending_.reportMutex());
  reporters_.reportWallTimes(context_.wall);
  for (const DerivedResult& derived :
       deriveAll({stream_.results(), context_.ranks, plan_.projection, stream_.verdicts()})) {
    reporters_.reportDerived(derived);
  }
  if (!timelines.empty()) reporters_.reportTimelines(timelines);
  reporters_.finalize();
  std::cout << reporters_.written() << std::flush;
}

int Run::judgedStatus() {
  const std::vector<CaseResult>& cases = stream_.results();
  const RunStatus run =
      judgeRun(cases, stream_.verdicts(), context_.ranks, plan_.output.fail_below_expected);
  // One write for all lines: mpirun forwards each write apart, and stdout's lines would
  // otherwise fall between a line's prefix and its text.
  std::string lines;
  for (const std::string& reason : run.reasons) lines += fmt::format("splitstep: {}\n", reason);
  std::cerr << lines << std::flush;
  return run.status;
}

void Run::reportOwnTimeline() {
  if (context_.ranks.empty()) return;
  std::vector<TelemetryReading> readings;
  if (parts_.sampler) readings = parts_.sampler->all();
  // Rank 0's clock is the trace's: no offset to apply.
  reporters_.reportTimelines(
      {rankTimeline(parts_.timeline, std::move(readings), ClockOffset{}, ClockOffset{})});
}

int Run::execute() {
  openRunParts(parts_, plan_, cluster_, watchdog_, context_);
  watchdog_.setOperation("agreeing on the memory every rank can spare");
  const MemoryBudget budget = agreeBudget(*parts_.device, cluster_, *parts_.agreement);
  SuiteContext suite_context{*parts_.device,
                             {},
                             *parts_.agreement,
                             watchdog_,
                             stream_,
                             plan_.measure,
                             cluster_.rank(),
                             cluster_.size(),
                             groups_,
                             nullptr,
                             &parts_.timeline,
                             parts_.sampler.get(),
                             budget};
  for (const auto& comm : parts_.comms) {
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
  std::vector<RankTimeline> timelines;
  if (tracing()) {
    std::vector<TelemetryReading> readings;
    if (parts_.sampler) readings = parts_.sampler->all();
    watchdog_.setOperation("gathering the ranks' timelines for the trace");
    timelines = gatherTimelines(parts_.timeline, std::move(readings), parts_.clock_at_start,
                                cluster_.comm(), watchdog_);
  }
  parts_.sampler.reset();
  context_.wall.gather = lap();
  int status = 0;
  if (cluster_.rank() == 0) {
    finishReports(timelines);
    status = judgedStatus();
  }
  // Every rank exits with rank 0's status, as a job script reads any rank's.
  watchdog_.setOperation("agreeing on the exit status");
  status = static_cast<int>(parts_.agreement->maxOverRanks(status));
  ending_.completed();
  return status;
}

}  // namespace

int runApp(const Invocation& invocation, Cluster& cluster, RunEnding& ending,
           SignalWatch& signals) {
  cluster.requireAllOk(invocation.usage_error);
  const ParsedCommand& command = invocation.command;
  if (command.action != ParsedCommand::Action::Run) {  // --help, --version: rank 0 answers
    const bool help = command.action == ParsedCommand::Action::Help;
    if (cluster.rank() == 0) std::cout << (help ? command.help : "splitstep " + buildId() + "\n");
    return 0;
  }
  const RunPlan& plan = command.plan;
  // The wall time of each part of the run is counted from here, for the report to say where it
  // went.
  const SteadyTime started = std::chrono::steady_clock::now();
  cluster.requireAllOk(checkLaunchSize(LauncherEnvironment::fromProcess(), cluster.size()));
  requireSamePlan(plan, cluster);
  // Held until the run has ended, however it ends: a second run on these paths is refused.
  const std::vector<OutputLock> locks = requireWritableOutputs(plan, cluster);
  // A lock a killed run left is taken over; the header says whose it was.
  Invocation noted = invocation;
  for (const OutputLock& lock : locks) {
    if (lock.takenOver().empty()) continue;
    noted.notes.push_back(
        fmt::format("took over '{}', left by {}, a run that ended without giving "
                    "it back",
                    printable(lock.lockPath(), 200), lock.takenOver()));
  }
  RankGroups groups = formGroups(plan.collectives, cluster);

  // Declared before everything that waits under it, so that it outlives them.
  Watchdog watchdog(plan.launch.timeout);
  const FaultHandling faults(cluster, watchdog, ending, signals, plan.launch.timeout);
  // Outside the try block, so that its parts are still there while the run ends after any
  // other failure.
  Run run(plan, noted, cluster, watchdog, ending, std::move(groups), started);
  try {
    return run.execute();
  } catch (const StartupRefused&) {
    throw;
  } catch (const EarlyWarning&) {
    return faults.endAtEarlyWarning();
  } catch (const std::exception& error) {
    faults.end(error);
  }
}

}  // namespace splitstep
