// The step suite's options, and one option per shape option of its models (models/StepModel.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string_view>

#include "models/Exported.hpp"
#include "options/OptionBuilders.hpp"

namespace splitstep {
namespace {

constexpr std::uint64_t kMaxBucketBytes = 16ull << 30;
constexpr double kMaxHostWorkMs = 60000;

bool fraction(double x) { return x >= 0 && x < 1; }
bool hostWorkMs(double x) { return x >= 0 && x <= kMaxHostWorkMs; }

std::vector<const StepModelDescriptor*> stepModelList(const OptionValue& value) {
  std::vector<const StepModelDescriptor*> models;
  for (const std::string& item : value.list()) {
    const StepModelDescriptor* model = findStepModel(item);
    if (model == nullptr) {
      value.failUnknown("value", item, stepModelNames());
    }
    models.push_back(model);
  }
  return models;
}

// A model's shape option (models/StepModel.hpp), named and bounded by its declaration.
OptionSpec shapeOption(const ShapeOption& shape) {
  return {std::string(shape.name),
          std::to_string(shape.default_value),
          std::string(shape.help),
          false,
          false,
          [&shape](const OptionValue& v, PlanDraft& d) {
            d.plan.step.shape.set(shape, v.integer(shape.min, shape.max));
          },
          [&shape](const RunPlan& p) { return integer(p.step.shape[shape]); }};
}

// A byte such as NUL would cut the path short in a reader's message, and no export writes such a
// name.
// A file name the reader could not be told apart from no file, or that a terminal would act on.
void refuseUnusablePath(const OptionValue& v, std::string_view without) {
  if (v.text().empty()) v.fail(fmt::format("the path is empty (leave the option out {})", without));
  if (std::ranges::all_of(v.text(), [](unsigned char c) { return std::isspace(c) != 0; })) {
    v.fail(fmt::format("the path '{}' is only blanks", printable(v.text())));
  }
  const auto control = [](unsigned char c) { return c < 0x20 || c == 0x7f; };
  if (std::ranges::any_of(v.text(), control)) {
    v.fail(printable(v.text()) + ": a file name with a control character");
  }
}

}  // namespace

std::vector<OptionSpec> stepOptions() {
  // clang-format off
  std::vector<OptionSpec> options = {
    option("step-models", "mlp", "step: models to train: " + stepModelNames(),
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.models = stepModelList(v); },
      [](const RunPlan& p) {
        TypedValue::List models;
        for (const StepModelDescriptor* model : p.step.models) models.push_back(text(model->name));
        return typedList(std::move(models));
      }),
    option("model-file", std::nullopt,
      "step: train the model of this archive of `splitstep-analysis export` in place of "
      "--step-models (named \"exported\" in results)",
      [](const OptionValue& v, PlanDraft& d) {
        refuseUnusablePath(v, "to train --step-models");
        try {
          loadExportedModel(v.text());
        } catch (const std::invalid_argument& error) {
          // The reader names the file first: shown printable and bounded, as option values are.
          std::string why = error.what();
          if (why.starts_with(v.text())) why = printable(v.text()) + why.substr(v.text().size());
          v.fail(why);
        }
        d.plan.step.model_file = v.text();
      },
      [](const RunPlan& p) { return text(p.step.model_file); }),
    option("gpu-busy", "on",
      "step: on a GPU, the GPU's busy time per phase, from 5 more steps per mode under LibTorch's "
      "profiler after the timed ones (on, off; off saves their time and the profiler's start)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.gpu_busy = v.onOff(); },
      [](const RunPlan& p) { return flag(p.step.gpu_busy); }),
    option("step-graphs", "off",
      "step: on a GPU, each mode (none, single) also as one CUDA graph per step, captured after "
      "warm-up and replayed for its samples: the step without the host's launches, a case of its "
      "own beside the eager one (on, off)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.step_graphs = v.onOff(); },
      [](const RunPlan& p) { return flag(p.step.step_graphs); }),
    option("archive-torch", "same",
      "step: with --model-file, same: refuse an archive exported by another torch release "
      "(major.minor) than the LibTorch this splitstep runs; any: run it anyway",
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.archive_torch = v.choice<ArchiveTorch>(); },
      [](const RunPlan& p) { return text(toString(p.step.archive_torch)); }),
    option("batch-file", std::nullopt,
      "step: with --model-file, train every rank on the batch in this file, as "
      "torch.save((inputs..., target), FILE) writes it, in place of one drawn from the recorded "
      "shapes",
      [](const OptionValue& v, PlanDraft& d) {
        refuseUnusablePath(v, "to draw the batch from the recorded shapes");
        d.plan.step.batch_file = v.text();
      },
      [](const RunPlan& p) { return text(p.step.batch_file); }),
    option("precision", "bf16",
      "step: fp32 (TF32 off); bf16 = autocast to bf16 with fp32 weights; fp16 = autocast with "
      "dynamic loss scaling",
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.precisions = v.choices<StepPrecision>(); },
      [](const RunPlan& p) { return names(p.step.precisions); }),
    option("sync-modes", "none,sequential,overlap,single",
      "step: gradient sync: none (compute only), sequential (bucketed allreduce after backward), "
      "overlap (DDP: buckets reduced during backward), single (rank 0 alone)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.modes = v.choices<SyncMode>(); },
      [](const RunPlan& p) { return names(p.step.modes); }),
    option("optimizer", "sgd", "step: " + enumChoices<StepOptimizer>(),
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.optimizer = v.choice<StepOptimizer>(); },
      [](const RunPlan& p) { return text(toString(p.step.optimizer)); }),
    option("optimizer-impl", "foreach",
      "step: the optimizer's implementation, as torch.optim's: loop (foreach=False), foreach "
      "(PyTorch's default on GPUs), fused (fused=True)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.optimizer_impl = v.choice<OptimizerImpl>(); },
      [](const RunPlan& p) { return text(toString(p.step.optimizer_impl)); }),
    option("lr", "0.01", "step: learning rate (> 0)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.learning_rate = v.number(positive, "a positive number"); },
      [](const RunPlan& p) { return number(p.step.learning_rate); }),
    option("momentum", "0", "step: SGD momentum in [0, 1)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.momentum = v.number(fraction, "a number in [0, 1)"); },
      [](const RunPlan& p) { return number(p.step.momentum); }),
    option("input", "pinned",
      "step: where each batch comes from: pinned or pageable host memory (copied every step), "
      "or device (already there: no copy)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.input = v.choice<InputSource>(); },
      [](const RunPlan& p) { return text(toString(p.step.input)); }),
    option("non-blocking", "on", "step: queue the host-to-device copy without waiting for it (on, off)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.non_blocking = v.onOff(); },
      [](const RunPlan& p) { return flag(p.step.non_blocking); }),
    option("host-work-ms", "0", "step: milliseconds of host work per batch before its copy, in [0, 60000]",
      [](const OptionValue& v, PlanDraft& d) {
        d.plan.step.host_work = v.number(hostWorkMs, "a number of milliseconds in [0, 60000]") / 1000;
      },
      [](const RunPlan& p) { return number(p.step.host_work * 1000); }),
    option("bucket-mb", "25", "step: gradient bucket size in MiB (decimals allowed, e.g. 0.5)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.bucket_bytes = v.mebibytes(4, kMaxBucketBytes); },
      [](const RunPlan& p) { return mib(p.step.bucket_bytes); }),
    option("first-bucket-mb", "1", "step: size of the first bucket (the last layers' gradients) in MiB",
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.first_bucket_bytes = v.mebibytes(4, kMaxBucketBytes); },
      [](const RunPlan& p) { return mib(p.step.first_bucket_bytes); }),
  };
  const std::vector<OptionSpec> rest = {
    option("delay-rank", "-1", "step: make this rank late in every step by --delay-ms (a straggler on purpose)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.delay_rank = integerIn(v, -1, 1 << 30); },
      [](const RunPlan& p) { return integer(p.step.delay_rank); }),
    option("delay-ms", "0", "step: how late --delay-rank is, in milliseconds of host time, in [0, 60000]",
      [](const OptionValue& v, PlanDraft& d) {
        d.plan.step.delay = v.number(hostWorkMs, "a number of milliseconds in [0, 60000]") / 1000;
      },
      [](const RunPlan& p) { return number(p.step.delay * 1000); }),
    option("delay-phase", "data", "step: the phase --delay-rank spends its delay in: " + enumChoices<DelayPhase>(),
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.delay_phase = v.choice<DelayPhase>(); },
      [](const RunPlan& p) { return text(toString(p.step.delay_phase)); }),
    testHook("test-sync-fault", "none",
      "for tests of the step's check only: a deliberate gradient-sync fault: " + enumChoices<SyncFault>(),
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.fault = v.choice<SyncFault>(); },
      [](const RunPlan& p) { return text(toString(p.step.fault)); }),
    testHook("test-fault-rank", "1", "for tests only: the rank a one-rank --test-sync-fault happens on",
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.fault_rank = integerIn(v, 0, 1 << 30); },
      [](const RunPlan& p) { return integer(p.step.fault_rank); }),
    option("torch-profile", std::nullopt,
      "step: write a LibTorch profiler (Kineto) trace of 3 steps of every mode and rank into this "
      "directory, to compare kernel by kernel with torch.profiler's",
      [](const OptionValue& v, PlanDraft& d) { d.plan.step.torch_profile_dir = v.path(); },
      [](const RunPlan& p) { return text(p.step.torch_profile_dir); }),
  };
  // clang-format on
  options.insert(options.end(), rest.begin(), rest.end());
  return options;
}

std::vector<OptionSpec> stepShapeOptions() {
  std::vector<OptionSpec> options;
  for (const ShapeOption* shape : shapeOptions()) options.push_back(shapeOption(*shape));
  return options;
}

}  // namespace splitstep
