#include "suites/step/StepMemory.hpp"

#include <fmt/format.h>

#include "common/Units.hpp"

namespace splitstep {
namespace {

bool syncs(SyncMode mode) { return mode == SyncMode::Sequential || mode == SyncMode::Overlap; }

double activationBytes(StepPrecision precision) { return precision == StepPrecision::Fp32 ? 4 : 2; }

// An exported model (--model-file) has no shape options: its sizes are the export's.
bool sizedByExport(const StepModelDescriptor& model) { return model.sizing.empty(); }

// "--mlp-width, --mlp-layers or --mlp-batch".
std::string sizingOptions(const StepModelDescriptor& model) {
  if (sizedByExport(model)) return "the model or its batch and export it again";
  std::string text;
  for (std::size_t i = 0; i < model.sizing.size(); ++i) {
    if (i > 0) text += i + 1 == model.sizing.size() ? " or " : ", ";
    text += "--" + std::string(model.sizing[i]->name);
  }
  return text;
}

std::string bytes(double value) { return formatBytesApprox(value); }

}  // namespace

StepMemory estimateStepMemory(const StepModelDescriptor& model, StepPrecision precision,
                              const StepPlan& plan, bool on_gpu, bool synchronised) {
  const double n = model.parameters(plan.shape);
  StepMemory m;
  m.parameters = 4 * n;
  m.gradients = 4 * n * (synchronised ? 2 : 1);
  if (plan.optimizer == StepOptimizer::AdamW) {
    // Two moments; the foreach and loop paths build the denominators as temporaries.
    m.optimizer = 4 * n * (plan.optimizer_impl == OptimizerImpl::Fused ? 2 : 3);
  } else if (plan.momentum != 0) {
    m.optimizer = 4 * n;
  }
  if (precision != StepPrecision::Fp32) m.casts = 2 * n;
  m.activations = model.activations(plan.shape, activationBytes(precision), on_gpu);
  m.batch = model.batch_bytes(plan.shape);
  return m;
}

std::optional<std::string> refuseOversizedSteps(const StepPlan& plan, bool on_gpu,
                                                double usable_bytes, const std::string& where) {
  bool synchronised = false;
  for (SyncMode mode : plan.modes) synchronised = synchronised || syncs(mode);
  for (const StepModelDescriptor* model : plan.models) {
    for (StepPrecision precision : plan.precisions) {
      const StepMemory m = estimateStepMemory(*model, precision, plan, on_gpu, synchronised);
      if (m.total() <= usable_bytes) continue;
      // The option the user gave.
      return fmt::format(
          "{}: {} {} needs about {} per rank ({} of parameters, {} of gradients and "
          "buckets, {} of optimizer state, {} of activations), more than the {} usable on {}; "
          "lower {}",
          sizedByExport(*model) ? "--model-file" : "--step-models", model->name,
          toString(precision), bytes(m.total()), bytes(m.parameters), bytes(m.gradients),
          bytes(m.optimizer), bytes(m.activations), bytes(usable_bytes), where,
          sizingOptions(*model));
    }
  }
  return std::nullopt;
}

}  // namespace splitstep
