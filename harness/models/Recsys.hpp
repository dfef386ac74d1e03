// recsys: a recommendation model's step. Embedding tables, each summed over a bag of lookups per
// sample (EmbeddingBag, mode sum), concatenated, then Linear(tables x dim, hidden) + ReLU +
// Linear(hidden, 1), binary cross-entropy on the logit against 0/1 labels. Its gradients are
// dense (DDP's default): the tables' whole gradient is synced every step, for little compute,
// which makes it the step to see communication and the optimizer dominate. Its module is
// models/RecsysModule.cpp.
#pragma once

#include "models/StepModel.hpp"

namespace splitstep {
namespace recsys_model {

using namespace shape_limits;

inline constexpr ShapeOption kTables = {"recsys-tables", 8, 1, kMaxLayers,
                                        "step recsys: embedding tables (one per sparse feature)"};
inline constexpr ShapeOption kRows = {"recsys-rows", 1 << 20, 1, 1LL << 32,
                                      "step recsys: rows of each embedding table"};
inline constexpr ShapeOption kDim = {"recsys-dim", 128, 1, kMaxWidth,
                                     "step recsys: width of an embedding row"};
inline constexpr ShapeOption kBag = {"recsys-bag", 32, 1, 1 << 16,
                                     "step recsys: lookups per sample and table, summed"};
inline constexpr ShapeOption kHidden = {"recsys-hidden", 1024, 1, kMaxWidth,
                                        "step recsys: width of the MLP's hidden layer"};
inline constexpr ShapeOption kBatch = {"recsys-batch", 4096, 1, kMaxBatch,
                                       "step recsys: batch per rank"};
inline constexpr const ShapeOption* kShape[] = {&kTables, &kRows, &kDim, &kBag, &kHidden, &kBatch};
inline constexpr const ShapeOption* kSizing[] = {&kRows, &kTables, &kDim, &kBatch, &kBag};
inline constexpr const ShapeOption* kArchitecture[] = {&kTables, &kRows, &kDim, &kHidden};

inline double value(const StepShape& s, const ShapeOption& option) {
  return static_cast<double>(s[option]);
}

// The MLP's input: every table's bag, side by side.
inline double features(const StepShape& s) { return value(s, kTables) * value(s, kDim); }

// tables x rows x dim, then Linear(features, hidden) and Linear(hidden, 1), each with its bias.
inline double parameters(const StepShape& s) {
  const double hidden = value(s, kHidden);
  return value(s, kTables) * value(s, kRows) * value(s, kDim) + features(s) * hidden + hidden +
         hidden + 1;
}

inline std::int64_t batch(const StepShape& s) { return s[kBatch]; }

// The two products; the bags' sums are additions, which no model here counts.
inline double flopPerStep(const StepShape& s, std::int64_t rows) {
  const double hidden = value(s, kHidden);
  return 3 * 2.0 * static_cast<double>(rows) * (features(s) * hidden + hidden);
}

inline double activations(const StepShape& s, double act, bool) {
  const double rows = value(s, kBatch);
  const double lookups = rows * value(s, kTables) * value(s, kBag);
  // The bags in fp32 (the tables are not autocast) and their concatenation, its autocast copy,
  // the hidden layer before and after ReLU, each bag's offsets and lookup-to-bag map (int64),
  // and the loss's fp32 buffers.
  return rows * features(s) * (2 * 4 + act) + 2 * rows * value(s, kHidden) * act + 2 * lookups * 8 +
         3 * rows * 4;
}

// The lookups (int64) and one fp32 label per sample.
inline double batchBytes(const StepShape& s) {
  const double rows = value(s, kBatch);
  return rows * value(s, kTables) * value(s, kBag) * 8 + rows * 4;
}

}  // namespace recsys_model

inline constexpr StepModelDescriptor kRecsysModel = {
    .name = "recsys",
    .reproduces = "",
    .shape = recsys_model::kShape,
    .sizing = recsys_model::kSizing,
    .parameters = recsys_model::parameters,
    .batch = recsys_model::batch,
    .flop_per_step = recsys_model::flopPerStep,
    .activations = recsys_model::activations,
    .batch_bytes = recsys_model::batchBytes,
    .shape_refusal = nullptr,
    .architecture = recsys_model::kArchitecture,
    .named_shapes = {},
};

}  // namespace splitstep
