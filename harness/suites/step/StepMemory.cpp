#include "suites/step/StepMemory.hpp"

#include <fmt/format.h>

#include "common/Units.hpp"

namespace splitstep {
namespace {

constexpr double kClasses = 1000;  // the transformer's and the cnn's classifier (Workload.cpp)

bool syncs(SyncMode mode) { return mode == SyncMode::Sequential || mode == SyncMode::Overlap; }

double activationBytes(StepPrecision precision) { return precision == StepPrecision::Fp32 ? 4 : 2; }

// Bytes kept for backward per token and block of the transformer and gpt: the norms' inputs and
// outputs (fp32), the products' inputs (cast copies), q, k, v, the attention output, the MLP's
// 4x hidden activation before and after GELU. An upper bound, counted from the ops saved.
double blockBytesPerToken(double width, double act) {
  return width * (4 * 4 + 2 * act + 3 * act + act + act + 4 * act + 4 * act);
}

double activations(StepModel model, StepPrecision precision, const StepPlan& plan, bool on_gpu) {
  const double act = activationBytes(precision);
  switch (model) {
    case StepModel::Mlp: {
      const MlpShape& m = plan.mlp;
      // Each layer keeps its input and its pre-GELU output; the loss works on fp32 copies.
      return static_cast<double>(m.layers) * m.batch * m.width * 2 * act +
             3.0 * m.batch * m.width * 4;
    }
    case StepModel::Transformer:
    case StepModel::Gpt: {
      const TransformerShape& t = plan.transformer;
      const double tokens = static_cast<double>(t.batch) * t.seq;
      double bytes = t.layers * tokens * blockBytesPerToken(t.width, act);
      if (!on_gpu)
        bytes += t.layers * static_cast<double>(t.batch) * t.heads * t.seq * t.seq * 2 * act;
      if (model == StepModel::Gpt) {
        // Logits in the autocast dtype, their fp32 copy and the log-softmax kept for backward.
        bytes += tokens * t.vocab * (act + 4 + 4);
      }
      return bytes + tokens * t.width * 4 * 2;  // embedding output and final norm
    }
    case StepModel::Cnn: {
      const CnnShape& c = plan.cnn;
      const double plane = static_cast<double>(c.batch) * c.channels * c.image * c.image;
      // Per residual block: both convolutions' inputs, both norms' inputs and outputs, the
      // ReLUs' outputs and the residual sum.
      return c.blocks * plane * 8 * act + plane * 3 * act + 3.0 * c.batch * c.image * c.image * 4;
    }
  }
  return 0;
}

double batchBytes(StepModel model, const StepPlan& plan) {
  switch (model) {
    case StepModel::Mlp:
      return 2.0 * plan.mlp.batch * plan.mlp.width * 4;
    case StepModel::Transformer:
      return static_cast<double>(plan.transformer.batch) * plan.transformer.seq *
                 plan.transformer.width * 4 +
             plan.transformer.batch * 8.0;
    case StepModel::Gpt:
      return 2.0 * plan.transformer.batch * plan.transformer.seq * 8;
    case StepModel::Cnn:
      return static_cast<double>(plan.cnn.batch) * 3 * plan.cnn.image * plan.cnn.image * 4 +
             plan.cnn.batch * 8.0;
  }
  return 0;
}

std::string sizingOptions(StepModel model) {
  switch (model) {
    case StepModel::Mlp:
      return "--mlp-width, --mlp-layers or --mlp-batch";
    case StepModel::Transformer:
      return "--transformer-width, --transformer-layers, --transformer-seq or --transformer-batch";
    case StepModel::Gpt:
      return "--transformer-width, --transformer-layers, --transformer-seq, --transformer-batch "
             "or --vocab";
    case StepModel::Cnn:
      return "--cnn-channels, --cnn-blocks, --cnn-image or --cnn-batch";
  }
  return "the model's shape";
}

std::string bytes(double value) { return formatBytesApprox(value); }

}  // namespace

double parameterCount(StepModel model, const StepPlan& plan) {
  switch (model) {
    case StepModel::Mlp: {
      const double d = plan.mlp.width;
      return plan.mlp.layers * (d * d + d);
    }
    case StepModel::Transformer:
    case StepModel::Gpt: {
      const TransformerShape& t = plan.transformer;
      const double d = t.width;
      const double blocks = t.layers * (12 * d * d + 13 * d) + 2 * d;  // and the final norm
      if (model == StepModel::Transformer) return (d * d + d) + blocks + (d * kClasses + kClasses);
      return t.vocab * d + t.seq * d + blocks + d * t.vocab;
    }
    case StepModel::Cnn: {
      const double c = plan.cnn.channels;
      return 27 * c + 2 * c + plan.cnn.blocks * (18 * c * c + 4 * c) + (c * kClasses + kClasses);
    }
  }
  return 0;
}

StepMemory estimateStepMemory(StepModel model, StepPrecision precision, const StepPlan& plan,
                              bool on_gpu, bool synchronised) {
  const double n = parameterCount(model, plan);
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
  m.activations = activations(model, precision, plan, on_gpu);
  m.batch = batchBytes(model, plan);
  return m;
}

std::optional<std::string> refuseOversizedSteps(const StepPlan& plan, bool on_gpu,
                                                double usable_bytes, const std::string& where) {
  bool synchronised = false;
  for (SyncMode mode : plan.modes) synchronised = synchronised || syncs(mode);
  for (StepModel model : plan.models) {
    for (StepPrecision precision : plan.precisions) {
      const StepMemory m = estimateStepMemory(model, precision, plan, on_gpu, synchronised);
      if (m.total() <= usable_bytes) continue;
      return fmt::format(
          "--step-models: {} {} needs about {} per rank ({} of parameters, {} of gradients and "
          "buckets, {} of optimizer state, {} of activations), more than the {} usable on {}; "
          "lower {}",
          toString(model), toString(precision), bytes(m.total()), bytes(m.parameters),
          bytes(m.gradients), bytes(m.optimizer), bytes(m.activations), bytes(usable_bytes), where,
          sizingOptions(model));
    }
  }
  return std::nullopt;
}

}  // namespace splitstep
