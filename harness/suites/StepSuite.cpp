#include "suites/StepSuite.hpp"

#include <fmt/format.h>

#include <memory>

#include "measure/Measurer.hpp"
#include "measure/StoppingRule.hpp"
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

// One mode's timings on this rank: the whole step per sample (the Measurer's), and per sample
// each phase's and the gradient collectives' seconds.
struct ModeTimes {
  Measurement step;
  std::vector<std::vector<double>> phases = std::vector<std::vector<double>>(kPhases.size());
  std::vector<double> comm;
};

ModeTimes timeMode(TrainingStep& step, GradientSync* sync, SyncMode mode,
                   const SuiteContext& context, const MeasureSettings& settings) {
  ModeTimes times;
  const auto body = [&] { step.run(sync, mode == SyncMode::Overlap); };
  const auto after_sample = [&] {
    for (Phase phase : kPhases) {
      times.phases[static_cast<std::size_t>(phase)].push_back(step.seconds(phase));
    }
    if (sync != nullptr) times.comm.push_back(sync->commSeconds());
  };
  if (mode != SyncMode::Single) {
    if (sync != nullptr) sync->broadcastParameters();
    times.step = Measurer(context.device, context.agreement, settings).measure(body, after_sample);
    return times;
  }
  // Rank 0 runs the step alone. The others run nothing but take part in every decision of its
  // Measurer, deferring to rank 0, so that all ranks still decide together, step by step.
  MeasureSettings alone = settings;
  alone.align_ranks = false;
  if (context.rank == 0) {
    times.step = Measurer(context.device, context.agreement, alone).measure(body, after_sample);
  } else {
    DeferringAgreement deferring(context.agreement);
    Measurer(context.device, deferring, alone).measure([] {});
    times.step.clock = context.device.clockName();  // no values: measured on rank 0 only
  }
  return times;
}

}  // namespace

std::vector<Sample> StepSuite::run(const SuiteContext& context) {
  TorchScope torch_scope(context.device);
  std::vector<std::string> notes;
  const MeasureSettings settings = stepSettings(context.measure, notes);
  if (plan_.input == InputSource::Pinned && !context.device.isCuda()) {
    notes.push_back("pinned memory needs a GPU: the batch is copied from pageable memory");
  }
  std::string no_sync;
  Communicator* comm = gradientBackend(context, no_sync);
  std::vector<Sample> samples;
  for (StepModel model : plan_.models) {
    for (StepPrecision precision : plan_.precisions) {
      const StepRecipe recipe = recipeFor(plan_, precision);
      // Where each mode's "step" sample is, for the checks that follow the timing.
      std::vector<std::pair<SyncMode, std::size_t>> step_samples;
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
              {"model", std::string(toString(model))},
              {"precision", std::string(toString(precision))},
              {"mode", std::string(toString(mode))},
              {"optimizer", std::string(toString(plan_.optimizer))},
              {"input", std::string(toString(plan_.input))},
              {"batch", std::to_string(batch)},
              {"flop_per_step", fmt::format("{:.0f}", flop)},
              {"world_size", std::to_string(context.world_size)},
              {"parameters", std::to_string(parameter_count)}};
          if (sync && syncs) {
            params["buckets"] = std::to_string(sync->bucketCount());
            params["gradient_bytes"] = std::to_string(sync->gradientBytes());
          }
          auto newSample = [&](const std::string& series) -> Sample& {
            Sample& s = samples.emplace_back();
            s.suite = name();
            s.case_name = case_name;
            s.series = series;
            s.part_of = series == "step" ? "" : "step";
            s.params = params;
            s.measurement.clock = context.device.clockName();
            return s;
          };
          if (syncs && !sync) {
            newSample("step").notes.push_back("skipped: " + no_sync);
            continue;
          }
          // Each mode starts from fresh optimizer and loss-scale state, so that what mode none
          // did on each rank's own gradients does not carry into the synchronised modes.
          TrainingStep step(*workload, recipe, context.device, host_batch);
          context.watchdog.setOperation("step " + case_name);
          GradientSync* used = syncs ? sync.get() : nullptr;
          const ModeTimes times = timeMode(step, used, mode, context, settings);
          for (Phase phase : kPhases) {
            if (phase == Phase::Sync && used == nullptr) continue;
            newSample(std::string(toString(phase))).measurement = partOf(
                times.step, times.phases[static_cast<std::size_t>(phase)], settings.max_noise);
          }
          if (used != nullptr) {
            newSample("comm").measurement = partOf(times.step, times.comm, settings.max_noise);
          }
          Sample& whole = newSample("step");
          whole.measurement = times.step;
          // Notes about the whole suite go with its first timed case only.
          whole.notes = std::move(notes);
          notes.clear();
          whole.rates = {{"samples/s", static_cast<double>(batch), 1}, {"TFLOP/s", flop, 1e12}};
          step_samples.emplace_back(mode, samples.size() - 1);
        }
      }
      // The timed model is gone: the check builds its own from the same seed.
      if (!plan_.check || comm == nullptr) continue;
      for (const auto& [mode, index] : step_samples) {
        if (!syncsGradients(mode)) continue;
        context.watchdog.setOperation(fmt::format("step {} {} {}: correctness check",
                                                  toString(model), toString(precision),
                                                  toString(mode)));
        StepCheckResult check = checkSynchronisedStep(
            model, plan_, recipe, mode == SyncMode::Overlap, context, *comm, torch_scope.device());
        Sample& whole = samples[index];
        whole.checks.insert(whole.checks.end(), check.checks.begin(), check.checks.end());
        whole.notes.insert(whole.notes.end(), check.notes.begin(), check.notes.end());
      }
    }
  }
  context.watchdog.setOperation("between suites");
  return samples;
}

}  // namespace splitstep
