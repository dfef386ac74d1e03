#include "suites/StepSuite.hpp"

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <span>

#include "cases/Rates.hpp"
#include "cases/StepCase.hpp"
#include "common/Units.hpp"
#include "measure/Measurer.hpp"
#include "measure/StoppingRule.hpp"
#include "models/Workload.hpp"
#include "suites/CaseRunner.hpp"
#include "suites/StepSpace.hpp"
#include "suites/TorchScope.hpp"
#include "suites/step/GradientSync.hpp"
#include "suites/step/GraphedStep.hpp"
#include "suites/step/StepCheck.hpp"
#include "suites/step/StepMemory.hpp"
#include "suites/step/TorchProfile.hpp"
#include "suites/step/TrainingStep.hpp"

namespace splitstep {
namespace {

// Steps under the profiler: enough to see each kernel of a step a few times, few enough that
// the trace stays small.
constexpr int kProfiledSteps = 3;

// One step per sample: a step is long enough to time alone, and its phase timers hold one step.
MeasureSettings stepSettings(const MeasureSettings& asked, std::vector<std::string>& notes) {
  MeasureSettings settings = asked;
  if (asked.loops > 1) notes.push_back("one step per sample: --loops does not apply");
  if (asked.queued_start || asked.l2_flush || asked.cuda_graph) {
    notes.push_back(
        "--queued-start, --l2-flush and --cuda-graph do not apply to a training step, whose host "
        "work is part of what is timed");
  }
  settings.loops = 1;
  settings.queued_start = false;
  settings.l2_flush = false;
  settings.cuda_graph = false;
  // The phases are recorded sample by sample beside the whole step: leaving a start-up transient
  // out of the step's samples would misalign them.
  settings.trim_transient = false;
  // Ranks start each step together, so that a rank's collective time holds only the wait for
  // slower ranks within the step.
  settings.align_ranks = true;
  return settings;
}

// How `rank` trains: the plan's recipe, late by the plan's delay where it is the delayed rank.
StepRecipe recipeFor(const StepPlan& plan, StepPrecision precision, int rank) {
  StepRecipe recipe{precision,     plan.optimizer, plan.optimizer_impl, plan.learning_rate,
                    plan.momentum, plan.input,     plan.non_blocking,   plan.host_work};
  if (rank == plan.delay_rank) {
    recipe.delay = plan.delay;
    recipe.delay_phase = plan.delay_phase;
  }
  return recipe;
}

// A phase's values as a Measurement of its own, sharing the step's settings and clocks.
Measurement partOf(const Measurement& step, std::vector<double> values, double max_noise) {
  Measurement m = step;
  m.values = std::move(values);
  m.host_values.clear();
  m.arrival_waits.clear();
  m.cold = 0;
  m.cold_host = 0;
  m.wall = {};  // the step's time, counted once in the step's own Sample
  m.notes.clear();
  m.noise = relativeNoise(m.values);
  m.noise_target_met = m.noise <= max_noise;
  return m;
}

// One mode's timings on this rank, per sample: each phase's seconds and the gradient
// collectives'. The whole step is the Measurer's (in the step's own Sample). Where a timeline
// records, also where each phase and each bucket's collective lay on the host's clock: the
// windows its telemetry readings are attributed by.
struct PhaseTimes {
  std::vector<std::vector<double>> phases = std::vector<std::vector<double>>(kPhases.size());
  std::vector<double> comm;
  std::vector<double> packing;
  std::vector<std::vector<BucketTiming>> buckets;  // per sample, per bucket
  std::vector<std::vector<HostSpan>> phase_windows =
      std::vector<std::vector<HostSpan>>(kPhases.size());
  std::vector<HostSpan> comm_windows;
};

// The phases of the step just timed on the working stream's track, its bucket collectives on
// the communication stream's.
void recordSpans(const TrainingStep& step, const GradientSync* sync, Timeline& timeline,
                 PhaseTimes& times) {
  for (Phase phase : kPhases) {
    if (const std::optional<HostSpan> span = step.span(phase)) {
      timeline.add(Track::Work, span_kind::kPhase, std::string(toString(phase)), *span);
      times.phase_windows[static_cast<std::size_t>(phase)].push_back(*span);
    }
  }
  if (sync == nullptr) return;
  const std::vector<std::size_t> bytes = sync->bucketBytes();
  const std::vector<HostSpan> buckets = sync->bucketSpans();
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    timeline.add(Track::Comm, span_kind::kCollective,
                 fmt::format("allreduce bucket {} ({})", b, formatBytes(bytes[b])), buckets[b]);
    times.comm_windows.push_back(buckets[b]);
  }
}

// Measures `body` into `whole`. In mode single rank 0 runs it alone; the others run nothing but
// take part in every decision of its Measurer, deferring to rank 0, so that all ranks still
// decide together, step by step.
void measureStep(CaseRunner& runner, Sample& whole, const MeasureSettings& settings, bool single,
                 const std::function<void()>& body, const std::function<void()>& after_sample) {
  const SuiteContext& context = runner.context();
  if (!single) {
    runner.measure(whole, settings, body, after_sample);
    return;
  }
  MeasureSettings alone = settings;
  alone.align_ranks = false;
  if (context.rank == 0) {
    runner.measure(whole, alone, body, after_sample);
    return;
  }
  DeferringAgreement deferring(context.agreement);
  const std::string clock = whole.measurement.clock;
  runner.measure(
      whole, alone, [] {}, nullptr, nullptr, &deferring);
  whole.measurement = Measurement{};  // no values: measured on rank 0 only
  whole.measurement.clock = clock;
  whole.telemetry.reset();
}

PhaseTimes timeMode(TrainingStep& step, GradientSync* sync, SyncMode mode, CaseRunner& runner,
                    Sample& whole, const MeasureSettings& settings) {
  PhaseTimes times;
  const auto body = [&] { step.run(sync, mode == SyncMode::Overlap); };
  const auto after_sample = [&] {
    for (Phase phase : kPhases) {
      times.phases[static_cast<std::size_t>(phase)].push_back(step.seconds(phase));
    }
    if (sync != nullptr) {
      times.comm.push_back(sync->commSeconds());
      times.packing.push_back(sync->packingSeconds());
      times.buckets.push_back(sync->bucketTimings());
    }
    if (Timeline* timeline = runner.timeline()) recordSpans(step, sync, *timeline, times);
  };
  if (mode != SyncMode::Single && sync != nullptr) sync->broadcastParameters();
  measureStep(runner, whole, settings, mode == SyncMode::Single, body, after_sample);
  return times;
}

// The sync phase's packing and each bucket's timeline, as detail series of a synchronised mode.
void addLedger(CaseRunner& runner, const std::string& case_name, const StepCase& fields,
               const Measurement& whole, const PhaseTimes& times,
               const std::vector<std::size_t>& bucket_bytes, double max_noise) {
  namespace key = step_keys;
  Sample& packing = runner.add(case_name, std::string(key::kPacking), fields.encode());
  packing.detail = true;
  packing.measurement = partOf(whole, times.packing, max_noise);
  struct Quantity {
    std::string_view name;
    double BucketTiming::*field;
  };
  constexpr Quantity kQuantities[] = {{key::kBucketReady, &BucketTiming::ready},
                                      {key::kBucketLaunchDelay, &BucketTiming::launch_delay},
                                      {key::kBucketComm, &BucketTiming::comm},
                                      {key::kBucketFinish, &BucketTiming::finish_after_backward}};
  for (std::size_t b = 0; b < bucket_bytes.size(); ++b) {
    for (const Quantity& q : kQuantities) {
      std::vector<double> values;
      for (const auto& sample : times.buckets) values.push_back(sample[b].*q.field);
      StepCase bucket = fields;
      bucket.bucket =
          StepBucketSeries{static_cast<std::int64_t>(b), static_cast<std::int64_t>(bucket_bytes[b]),
                           std::string(q.name)};
      Sample& s = runner.add(case_name, fmt::format("bucket {} {}", b, q.name), bucket.encode());
      s.detail = true;
      s.measurement = partOf(whole, std::move(values), max_noise);
    }
  }
}

// The GPU's busy seconds per profiled step, by phase and for the whole step, as detail series
// (empty on a rank that did not profile: the others of mode single).
void addBusy(CaseRunner& runner, const std::string& case_name, const CaseFields& params,
             const Measurement& whole, const std::vector<StepBusy>& busy, bool syncs,
             double max_noise) {
  namespace key = step_keys;
  const auto add = [&](std::string_view of, const auto& value) {
    std::vector<double> values;
    for (const StepBusy& b : busy) values.push_back(value(b));
    Sample& s = runner.add(case_name, key::busySeries(of), params);
    s.detail = true;
    s.measurement = partOf(whole, std::move(values), max_noise);
  };
  for (Phase phase : kPhases) {
    if (phase == Phase::Sync && !syncs) continue;
    add(toString(phase),
        [phase](const StepBusy& b) { return b.phases[static_cast<std::size_t>(phase)]; });
  }
  add(key::kWhole, [](const StepBusy& b) { return b.step; });
}

// What a graphed case is measured from: the eager case it stands beside and how it trained.
struct GraphedCase {
  SyncMode mode;
  GradientSync* sync;  // the eager case's: nullptr in modes none and single
  std::string eager_name;
  StepCase fields;  // the eager case's
  std::vector<Rate> rates;
};

// Mode `c.mode` again as one CUDA graph per step, timed by its replays: a case of its own,
// "<eager case> graphed", compared with the eager case. Collective: where any rank that runs it
// cannot capture it, every rank skips it, naming why.
void runGraphed(CaseRunner& runner, const StepPlan& plan, const StepRecipe& recipe,
                Workload& workload, const Batch& host_batch, const GraphedCase& c,
                const MeasureSettings& settings) {
  namespace key = step_keys;
  const SuiteContext& context = runner.context();
  StepCase fields = c.fields;
  fields.launch = StepLaunch::Graph;
  const CaseFields params = fields.encode();
  const std::string name = c.eager_name + " graphed";
  const Comparison against_eager{c.eager_name, "eager", false};
  const auto skip = [&](const std::string& why) {
    Sample& s = runner.add(name, std::string(key::kWhole), params);
    s.comparison = against_eager;
    CaseRunner::skip(s, why);
  };
  // Judged on what every rank's step holds, so that every rank skips or captures alike: a
  // straggler on purpose delays one rank's recipe only.
  StepRecipe everyone = recipe;
  everyone.delay = plan.delay_rank >= 0 ? plan.delay : 0;
  if (const auto why_not = whyNotGraphed(everyone)) {
    skip(*why_not);
    return;
  }
  const bool single = c.mode == SyncMode::Single;
  const bool overlap = c.mode == SyncMode::Overlap;
  const bool runs = !single || context.rank == 0;
  context.watchdog.setOperation("step " + name + ": capture");
  std::optional<TrainingStep> step;
  std::unique_ptr<GraphedStep> graph;
  std::string failure;
  if (runs) {
    try {
      step.emplace(workload, graphedRecipe(recipe), context.device, host_batch);
      graph = std::make_unique<GraphedStep>(*step, c.sync, overlap);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  if (context.agreement.maxOverRanks(failure.empty() ? 0 : 1) != 0) {
    skip(failure.empty() ? "the CUDA graph capture failed on another rank" : failure);
    return;
  }
  const auto replay = [&graph] { graph->replay(); };
  Sample whole;
  whole.case_name = name;  // names the case to the watchdog and the progress line
  whole.measurement.clock = context.device.clockName();
  measureStep(runner, whole, settings, single, replay, nullptr);
  std::vector<double> busy;
  if (plan.gpu_busy && runs) {
    context.watchdog.setOperation("step " + name + ": GPU busy time");
    busy = profileReplays(replay, static_cast<int>(kBusySteps), context.device);
  }
  // The graph's memory goes before the check brings two steps of its own.
  graph.reset();
  step.reset();
  std::optional<GraphCheckResult> check;
  if (plan.check && runs) {
    context.watchdog.setOperation("step " + name + ": correctness check");
    check = checkGraphed(workload, recipe, context.device, host_batch,
                         gradientTolerance(recipe.precision), c.sync, overlap);
  }
  if (plan.gpu_busy) {
    Sample& s = runner.add(name, key::busySeries(key::kWhole), params);
    s.detail = true;
    s.measurement = partOf(whole.measurement, std::move(busy), settings.max_noise);
  }
  Sample& graphed = runner.add(name, std::string(key::kWhole), params);
  graphed.measurement = std::move(whole.measurement);
  graphed.telemetry = std::move(whole.telemetry);
  graphed.rates = c.rates;
  graphed.comparison = against_eager;
  if (check) {
    graphed.checks = std::move(check->checks);
    graphed.notes.push_back(std::move(check->note));
  }
}

}  // namespace

std::optional<std::string> StepSuite::refusal(const SuiteContext& context) const {
  // The agreed budget: the least free memory over ranks, the host's divided among the ranks
  // that share it. The margin (MemoryBudget::kUsable) leaves room for the allocator's rounding,
  // the communicators' buffers and fragmentation.
  const bool on_gpu = context.device.isCuda();
  if (plan_.step_graphs && !on_gpu) {
    return std::string(
        "--step-graphs needs a GPU on every rank: a CPU rank launches no kernels, so there are "
        "no launches for a graph to take out of its step");
  }
  const std::optional<std::uint64_t> free =
      on_gpu ? context.budget.device_free : context.budget.host_available;
  if (!free) return std::nullopt;
  const double usable = MemoryBudget::usable(*free);
  const std::string where = on_gpu ? fmt::format("every rank's GPU (the least free of them: {})",
                                                 formatBytesApprox(static_cast<double>(*free)))
                                   : fmt::format("the host ({} of its available memory per rank)",
                                                 formatBytesApprox(static_cast<double>(*free)));
  return refuseOversizedSteps(plan_, on_gpu, usable, where);
}

StepSpace StepSuite::space(const SuiteContext& context) const {
  return StepSpace(plan_, context.communicators, context.device.isCuda());
}

std::size_t StepSuite::caseCount(const SuiteContext& context) const {
  // With --step-graphs, each mode's graphed case follows its eager one.
  return space(context).size() * (plan_.step_graphs ? 2 : 1);
}

void StepSuite::run(const SuiteContext& context) {
  namespace key = step_keys;
  TorchScope torch_scope(context.device);
  // A workload's cases are published once its checks have joined them.
  CaseRunner runner(context, name(), CaseRunner::Publish::WhenTold);
  std::vector<std::string> notes;
  const MeasureSettings settings = stepSettings(context.measure, notes);
  if (plan_.input == InputSource::Pinned && !context.device.isCuda()) {
    notes.push_back("pinned memory needs a GPU: the batch is copied from pageable memory");
  }
  const StepSpace cases = space(context);
  Communicator* comm = cases.gradientBackend();
  // Where each mode's whole-step Sample is, for the checks that follow the timing.
  std::vector<std::pair<SyncMode, std::size_t>> step_samples;
  for (const std::span<const StepSpace::Case> modes : cases.workloads()) {
    const StepModelDescriptor* model = modes.front().model;
    const StepPrecision precision = modes.front().precision;
    const StepRecipe recipe = recipeFor(plan_, precision, context.rank);
    step_samples.clear();
    // Each synchronised mode's check, joined to its whole-step Sample once the runner hands
    // the samples over.
    std::vector<std::pair<std::size_t, StepCheckResult>> checked;
    {
      const auto workload = makeWorkload(*model, plan_.shape, torch_scope.device(), kModelSeed);
      const std::int64_t batch = workload->batchSize();
      const Batch host_batch = workload->hostBatch(batch, batchSeed(context.rank));
      std::unique_ptr<GradientSync> sync;
      if (comm != nullptr) {
        sync = std::make_unique<GradientSync>(workload->parameters(), *comm, context.device,
                                              plan_.first_bucket_bytes, plan_.bucket_bytes,
                                              context.world_size);
      }
      std::int64_t parameter_count = 0;
      for (const at::Tensor& p : workload->parameters()) parameter_count += p.numel();
      const double flop = model->flop_per_step(plan_.shape, batch);
      if (flop <= 0) {
        // An exported model whose graph has no products, convolutions or attention.
        notes.push_back(fmt::format("{}: no FLOPs counted in its step: no TFLOP/s", model->name));
      }
      for (const StepSpace::Case& c : modes) {
        const SyncMode mode = c.mode;
        const std::string case_name = cases.name(c);
        const bool syncs = syncsGradients(mode);
        StepCase fields{std::string(model->name),
                        precision,
                        mode,
                        plan_.optimizer,
                        plan_.optimizer_impl,
                        plan_.input,
                        batch,
                        flop,
                        context.world_size,
                        parameter_count,
                        context.device.isCuda(),
                        {},
                        {},
                        {}};
        if (plan_.delay_rank >= 0 && plan_.delay > 0) {
          fields.delay = StepDelay{plan_.delay_rank, plan_.delay};
        }
        if (sync && syncs) {
          const std::vector<std::size_t>& sizes = sync->bucketBytes();
          fields.buckets = StepBuckets{static_cast<std::int64_t>(sync->bucketCount()),
                                       static_cast<std::int64_t>(sync->gradientBytes()),
                                       IntegerList(sizes.begin(), sizes.end())};
        }
        const CaseFields params = fields.encode();
        if (const auto skip = cases.whyNot(c)) {
          CaseRunner::skip(runner.add(case_name, std::string(key::kWhole), params), skip->reason);
          continue;
        }
        // Each mode starts from fresh optimizer and loss-scale state, so that what mode none
        // did on each rank's own gradients does not carry into the synchronised modes.
        std::optional<TrainingStep> eager;
        TrainingStep& step = eager.emplace(*workload, recipe, context.device, host_batch);
        GradientSync* used = syncs ? sync.get() : nullptr;
        Sample whole;
        whole.case_name = case_name;  // names the case to the watchdog and the progress line
        whole.measurement.clock = context.device.clockName();
        const PhaseTimes times = timeMode(step, used, mode, runner, whole, settings);
        if (!plan_.torch_profile_dir.empty() && (mode != SyncMode::Single || context.rank == 0)) {
          context.watchdog.setOperation("step " + case_name + ": profile");
          profileSteps([&] { step.run(used, mode == SyncMode::Overlap); }, kProfiledSteps,
                       context.device,
                       fmt::format("{}/splitstep-{}-{}-{}-rank{}.json", plan_.torch_profile_dir,
                                   model->name, toString(precision), toString(mode), context.rank));
        }
        std::vector<StepBusy> busy;
        const bool profiles_busy = plan_.gpu_busy && context.device.isCuda();
        if (profiles_busy && (mode != SyncMode::Single || context.rank == 0)) {
          context.watchdog.setOperation("step " + case_name + ": GPU busy time");
          busy = profileBusy([&] { step.run(used, mode == SyncMode::Overlap); },
                             static_cast<int>(kBusySteps), context.device);
        }
        for (Phase phase : kPhases) {
          if (phase == Phase::Sync && used == nullptr) continue;
          Sample& part = runner.add(case_name, std::string(toString(phase)), params);
          part.part_of = key::kWhole;
          part.measurement = partOf(
              whole.measurement, times.phases[static_cast<std::size_t>(phase)], settings.max_noise);
          part.telemetry =
              runner.telemetryDuring(times.phase_windows[static_cast<std::size_t>(phase)]);
        }
        if (used != nullptr) {
          Sample& part = runner.add(case_name, std::string(key::kComm), params);
          part.part_of = key::kWhole;
          part.measurement = partOf(whole.measurement, times.comm, settings.max_noise);
          part.telemetry = runner.telemetryDuring(times.comm_windows);
          addLedger(runner, case_name, fields, whole.measurement, times, used->bucketBytes(),
                    settings.max_noise);
        }
        if (profiles_busy) {
          addBusy(runner, case_name, params, whole.measurement, busy, used != nullptr,
                  settings.max_noise);
        }
        Sample& step_sample = runner.add(case_name, std::string(key::kWhole), params);
        step_sample.measurement = std::move(whole.measurement);
        step_sample.telemetry = std::move(whole.telemetry);
        // Notes about the whole suite go with its first timed case only.
        step_sample.notes = std::exchange(notes, {});
        step_sample.rates = {rates::of(rates::kSamplesPerSecond, static_cast<double>(batch))};
        // A model of no FLOPs counted (an exported graph of no products) gets no TFLOP/s.
        if (flop > 0) step_sample.rates.push_back(rates::of(rates::kTflops, flop));
        step_samples.emplace_back(mode, runner.size() - 1);
        if (plan_.step_graphs) {
          step_sample.comparison = {case_name, "eager", true};
          const GraphedCase graphed{mode, used, case_name, fields, step_sample.rates};
          eager.reset();  // its optimizer's state goes before the graphed step's comes
          runGraphed(runner, plan_, recipe, *workload, host_batch, graphed, settings);
        }
      }
      // The timed buckets go: each check brings its own, with the fault to inject.
      sync.reset();
      std::optional<SyncCheck> check;
      for (const auto& [mode, index] : step_samples) {
        if (!plan_.check || comm == nullptr || !syncsGradients(mode)) continue;
        context.watchdog.setOperation(fmt::format("step {} {} {}: correctness check", model->name,
                                                  toString(precision), toString(mode)));
        std::optional<Timeline::HostScope> scope;
        if (Timeline* timeline = runner.timeline()) {
          timeline->setCase(
              fmt::format("step {} {} {}", model->name, toString(precision), toString(mode)));
          scope.emplace(*timeline, span_kind::kCheck, "check");
        }
        if (!check) check.emplace(plan_, recipe, context, *comm, *workload, host_batch);
        checked.emplace_back(index, check->run(mode == SyncMode::Overlap));
      }
    }
    std::vector<Sample> produced = runner.take();
    for (auto& [index, check] : checked) {
      Sample& whole = produced[index];
      whole.checks.insert(whole.checks.end(), check.checks.begin(), check.checks.end());
      whole.notes.insert(whole.notes.end(), check.notes.begin(), check.notes.end());
    }
    runner.publish(std::move(produced));
  }
}

const SuiteRegistration kStepRegistration("step", [](const SuiteInfo&, const RunPlan& plan) {
  return std::unique_ptr<Suite>(std::make_unique<StepSuite>(plan.step));
});

}  // namespace splitstep
