// mlp: N x (Linear(width, width) + GELU), MSE loss against a target of the output's shape. Its
// module is models/MlpModule.cpp.
#pragma once

#include "models/StepModel.hpp"

namespace splitstep {
namespace mlp_model {

using namespace shape_limits;

inline constexpr ShapeOption kLayers = {"mlp-layers", 8, 1, kMaxLayers,
                                        "step mlp: Linear(width, width) + GELU layers"};
inline constexpr ShapeOption kWidth = {"mlp-width", 8192, 1, kMaxWidth, "step mlp: width"};
inline constexpr ShapeOption kBatch = {"mlp-batch", 8192, 1, kMaxBatch, "step mlp: batch per rank"};
inline constexpr const ShapeOption* kShape[] = {&kLayers, &kWidth, &kBatch};
inline constexpr const ShapeOption* kSizing[] = {&kWidth, &kLayers, &kBatch};

inline double parameters(const StepShape& s) {
  const double d = static_cast<double>(s[kWidth]);
  return static_cast<double>(s[kLayers]) * (d * d + d);
}

inline std::int64_t batch(const StepShape& s) { return s[kBatch]; }

inline double flopPerStep(const StepShape& s, std::int64_t rows) {
  const double d = static_cast<double>(s[kWidth]);
  return 3 * 2.0 * static_cast<double>(rows) * d * d * static_cast<double>(s[kLayers]);
}

inline double activations(const StepShape& s, double act, bool) {
  const double rows = static_cast<double>(s[kBatch]);
  const double width = static_cast<double>(s[kWidth]);
  // Each layer keeps its input and its pre-GELU output; the loss works on fp32 copies.
  return static_cast<double>(s[kLayers]) * rows * width * 2 * act + 3.0 * rows * width * 4;
}

inline double batchBytes(const StepShape& s) {
  return 2.0 * static_cast<double>(s[kBatch]) * static_cast<double>(s[kWidth]) * 4;
}

}  // namespace mlp_model

inline constexpr StepModelDescriptor kMlpModel = {
    .name = "mlp",
    .reproduces = "",
    .shape = mlp_model::kShape,
    .sizing = mlp_model::kSizing,
    .parameters = mlp_model::parameters,
    .batch = mlp_model::batch,
    .flop_per_step = mlp_model::flopPerStep,
    .activations = mlp_model::activations,
    .batch_bytes = mlp_model::batchBytes,
    .shape_refusal = nullptr,
    .architecture = {},
    .named_shapes = {},
};

}  // namespace splitstep
