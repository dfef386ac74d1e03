#include "suites/StepSuite.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "measure/Measurer.hpp"
#include "measure/StoppingRule.hpp"
#include "suites/CaseRunner.hpp"
#include "suites/TorchScope.hpp"
#include "suites/step/GradientSync.hpp"
#include "suites/step/StepCheck.hpp"
#include "suites/step/TrainingStep.hpp"
#include "suites/step/Workload.hpp"

namespace splitstep {
namespace {

bool syncsGradients(SyncMode mode) {
  return mode == SyncMode::Sequential || mode == SyncMode::Overlap;
}

// The backend that averages gradients: NCCL on GPUs (stream-ordered, so it can overlap with
// backward), MPI on CPUs.
Communicator* gradientBackend(const SuiteContext& context, std::string& why_not) {
  for (Communicator* comm : context.communicators) {
    if (context.device.isCuda() ? comm->backend() == "nccl" : !comm->usesDeviceBuffers()) {
      return comm;
    }
  }
  why_not = context.device.isCuda()
                ? "gradient sync on GPUs runs over nccl, which --backend left out"
                : "gradient sync on CPUs needs the mpi backend";
  return nullptr;
}

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
  // Ranks start each step together, so that a rank's collective time holds only the wait for
  // slower ranks within the step.
  settings.align_ranks = true;
  return settings;
}

StepRecipe recipeFor(const StepPlan& plan, StepPrecision precision) {
  return {precision,  plan.optimizer,    plan.learning_rate, plan.momentum,
          plan.input, plan.non_blocking, plan.host_work};
}

// A phase's values as a Measurement of its own, sharing the step's settings and clocks.
Measurement partOf(const Measurement& step, std::vector<double> values, double max_noise) {
  Measurement m = step;
  m.values = std::move(values);
  m.host_values.clear();
  m.arrival_waits.clear();
  m.cold = 0;
  m.cold_host = 0;
  m.notes.clear();
  m.noise = relativeNoise(m.values);
  m.noise_target_met = m.noise <= max_noise;
  return m;
}

// One mode's timings on this rank, per sample: each phase's seconds and the gradient
// collectives'. The whole step is the Measurer's (in the step's own Sample).
struct PhaseTimes {
  std::vector<std::vector<double>> phases = std::vector<std::vector<double>>(kPhases.size());
  std::vector<double> comm;
};

PhaseTimes timeMode(TrainingStep& step, GradientSync* sync, SyncMode mode, CaseRunner& runner,
                    Sample& whole, const MeasureSettings& settings) {
  const SuiteContext& context = runner.context();
  PhaseTimes times;
  const auto body = [&] { step.run(sync, mode == SyncMode::Overlap); };
  const auto after_sample = [&] {
    for (Phase phase : kPhases) {
      times.phases[static_cast<std::size_t>(phase)].push_back(step.seconds(phase));
    }
    if (sync != nullptr) times.comm.push_back(sync->commSeconds());
  };
  if (mode != SyncMode::Single) {
    if (sync != nullptr) sync->broadcastParameters();
    runner.measure(whole, settings, body, after_sample);
    return times;
  }
  // Rank 0 runs the step alone. The others run nothing but take part in every decision of its
  // Measurer, deferring to rank 0, so that all ranks still decide together, step by step.
  MeasureSettings alone = settings;
  alone.align_ranks = false;
  if (context.rank == 0) {
    runner.measure(whole, alone, body, after_sample);
  } else {
    DeferringAgreement deferring(context.agreement);
    const std::string clock = whole.measurement.clock;
    runner.measure(
        whole, alone, [] {}, nullptr, nullptr, &deferring);
    whole.measurement = Measurement{};  // no values: measured on rank 0 only
    whole.measurement.clock = clock;
  }
  return times;
}

}  // namespace

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
  std::string no_sync;
  Communicator* comm = gradientBackend(context, no_sync);
  // Where each mode's whole-step Sample is, for the checks that follow the timing.
  std::vector<std::pair<SyncMode, std::size_t>> step_samples;
  for (StepModel model : plan_.models) {
    for (StepPrecision precision : plan_.precisions) {
      const StepRecipe recipe = recipeFor(plan_, precision);
      step_samples.clear();
      {
        const auto workload = makeWorkload(model, plan_, torch_scope.device(), kModelSeed);
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
        const double flop = workload->flopPerStep(batch);
        for (SyncMode mode : plan_.modes) {
          const std::string case_name =
              fmt::format("{} {} {}", toString(model), toString(precision), toString(mode));
          const bool syncs = syncsGradients(mode);
          std::map<std::string, std::string> params = {
              {std::string(key::kModel), std::string(toString(model))},
              {std::string(key::kPrecision), std::string(toString(precision))},
              {std::string(key::kMode), std::string(toString(mode))},
              {std::string(key::kOptimizer), std::string(toString(plan_.optimizer))},
              {std::string(key::kInput), std::string(toString(plan_.input))},
              {std::string(key::kBatch), std::to_string(batch)},
              {std::string(key::kFlopPerStep), fmt::format("{:.0f}", flop)},
              {std::string(key::kWorldSize), std::to_string(context.world_size)},
              {std::string(key::kParameters), std::to_string(parameter_count)}};
          if (sync && syncs) {
            params[std::string(key::kBuckets)] = std::to_string(sync->bucketCount());
            params[std::string(key::kGradientBytes)] = std::to_string(sync->gradientBytes());
            params[std::string(key::kBucketSizes)] =
                fmt::format("{}", fmt::join(sync->bucketBytes(), ","));
          }
          if (syncs && !sync) {
            CaseRunner::skip(runner.add(case_name, std::string(key::kWhole), params), no_sync);
            continue;
          }
          // Each mode starts from fresh optimizer and loss-scale state, so that what mode none
          // did on each rank's own gradients does not carry into the synchronised modes.
          TrainingStep step(*workload, recipe, context.device, host_batch);
          GradientSync* used = syncs ? sync.get() : nullptr;
          Sample whole;
          whole.measurement.clock = context.device.clockName();
          const PhaseTimes times = timeMode(step, used, mode, runner, whole, settings);
          for (Phase phase : kPhases) {
            if (phase == Phase::Sync && used == nullptr) continue;
            Sample& part = runner.add(case_name, std::string(toString(phase)), params);
            part.part_of = key::kWhole;
            part.measurement =
                partOf(whole.measurement, times.phases[static_cast<std::size_t>(phase)],
                       settings.max_noise);
          }
          if (used != nullptr) {
            Sample& part = runner.add(case_name, std::string(key::kComm), params);
            part.part_of = key::kWhole;
            part.measurement = partOf(whole.measurement, times.comm, settings.max_noise);
          }
          Sample& step_sample = runner.add(case_name, std::string(key::kWhole), params);
          step_sample.measurement = std::move(whole.measurement);
          // Notes about the whole suite go with its first timed case only.
          step_sample.notes = std::exchange(notes, {});
          step_sample.rates = {{"samples/s", static_cast<double>(batch), 1},
                               {"TFLOP/s", flop, 1e12}};
          step_samples.emplace_back(mode, runner.size() - 1);
        }
      }
      std::vector<Sample> produced = runner.take();
      // The timed model is gone: the check builds its own from the same seed.
      for (const auto& [mode, index] : step_samples) {
        if (!plan_.check || comm == nullptr || !syncsGradients(mode)) continue;
        context.watchdog.setOperation(fmt::format("step {} {} {}: correctness check",
                                                  toString(model), toString(precision),
                                                  toString(mode)));
        StepCheckResult check = checkSynchronisedStep(
            model, plan_, recipe, mode == SyncMode::Overlap, context, *comm, torch_scope.device());
        Sample& whole = produced[index];
        whole.checks.insert(whole.checks.end(), check.checks.begin(), check.checks.end());
        whole.notes.insert(whole.notes.end(), check.notes.begin(), check.notes.end());
      }
      runner.publish(std::move(produced));
    }
  }
}

const SuiteRegistration kStepRegistration("step", [](const SuiteInfo&, const RunPlan& plan) {
  return std::unique_ptr<Suite>(std::make_unique<StepSuite>(plan.step));
});

}  // namespace splitstep
