// transformer: N pre-norm encoder blocks (self-attention + MLP of 4x width) over `seq` tokens, a
// linear patch embedding in front and a classifier on the mean token behind (cross-entropy).
// gpt: the same blocks with causal attention between token and position embeddings and a
// language-model head over `vocab` tokens (cross-entropy on every next token). Both share the
// transformer's shape options; their modules are models/TransformerModule.cpp.
#pragma once

#include <string>

#include "models/StepModel.hpp"

namespace splitstep {
namespace transformer_model {

using namespace shape_limits;

inline constexpr ShapeOption kLayers = {"transformer-layers", 12, 1, kMaxLayers,
                                        "step transformer and gpt: pre-norm blocks"};
inline constexpr ShapeOption kWidth = {
    "transformer-width", 768, 1, kMaxWidth,
    "step transformer and gpt: model width (a multiple of --transformer-heads)"};
inline constexpr ShapeOption kHeads = {"transformer-heads", 12, 1, kMaxLayers,
                                       "step transformer and gpt: attention heads"};
inline constexpr ShapeOption kSeq = {"transformer-seq", 197, 1, 1 << 20,
                                     "step transformer and gpt: tokens per sample"};
inline constexpr ShapeOption kBatch = {"transformer-batch", 128, 1, kMaxBatch,
                                       "step transformer and gpt: batch per rank"};
// GPT-2's vocabulary padded to a multiple of 64.
inline constexpr ShapeOption kVocab = {"vocab", 50304, 2, 1 << 20,
                                       "step gpt: vocabulary of the language-model head"};
inline constexpr const ShapeOption* kShape[] = {&kLayers, &kWidth, &kHeads, &kSeq, &kBatch};
inline constexpr const ShapeOption* kSizing[] = {&kWidth, &kLayers, &kSeq, &kBatch};
inline constexpr const ShapeOption* kGptShape[] = {&kLayers, &kWidth, &kHeads,
                                                   &kSeq,    &kBatch, &kVocab};
inline constexpr const ShapeOption* kGptSizing[] = {&kWidth, &kLayers, &kSeq, &kBatch, &kVocab};

inline double value(const StepShape& s, const ShapeOption& option) {
  return static_cast<double>(s[option]);
}

// The encoder blocks and the final norm.
inline double blockParameters(const StepShape& s) {
  const double d = value(s, kWidth);
  return value(s, kLayers) * (12 * d * d + 13 * d) + 2 * d;
}

// Bytes kept for backward per token and block: the norms' inputs and outputs (fp32), the
// products' inputs (cast copies), q, k, v, the attention output, the MLP's 4x hidden activation
// before and after GELU. An upper bound, counted from the ops saved.
inline double blockBytesPerToken(double width, double act) {
  return width * (4 * 4 + 2 * act + 3 * act + act + act + 4 * act + 4 * act);
}

// What both keep: the blocks' activations (with the seq x seq attention matrix on the CPU), the
// embedding's output and the final norm's.
inline double blockActivations(const StepShape& s, double act, bool on_gpu) {
  const double tokens = value(s, kBatch) * value(s, kSeq);
  double bytes = value(s, kLayers) * tokens * blockBytesPerToken(value(s, kWidth), act);
  if (!on_gpu) {
    bytes += value(s, kLayers) * value(s, kBatch) * value(s, kHeads) * value(s, kSeq) *
             value(s, kSeq) * 2 * act;
  }
  return bytes;
}

inline double tokenBytes(const StepShape& s) {
  return value(s, kBatch) * value(s, kSeq) * value(s, kWidth) * 4 * 2;
}

inline std::optional<std::string> headsRefusal(const StepShape& s) {
  if (s[kWidth] % s[kHeads] == 0) return std::nullopt;
  return "--transformer-heads: " + std::to_string(s[kHeads]) + " does not divide " +
         "--transformer-width " + std::to_string(s[kWidth]);
}

inline std::int64_t batch(const StepShape& s) { return s[kBatch]; }

inline double parameters(const StepShape& s) {
  const double d = value(s, kWidth);
  const double classes = kClassifierClasses;
  return (d * d + d) + blockParameters(s) + (d * classes + classes);
}

inline double flopPerStep(const StepShape& s, std::int64_t rows) {
  const double d = value(s, kWidth);
  const double seq = value(s, kSeq);
  // FLOPs (two per multiply-add) per token and block: qkv 6d^2, projection 2d^2, MLP 16d^2, the
  // attention's two s x d products 4sd; plus 2d^2 per token for the embedding and 2d x classes
  // per sample for the head.
  const double per_token = value(s, kLayers) * (24 * d * d + 4 * seq * d) + 2 * d * d;
  const double forward = static_cast<double>(rows) * (seq * per_token + 2 * d * kClassifierClasses);
  return 3 * forward;
}

inline double activations(const StepShape& s, double act, bool on_gpu) {
  return blockActivations(s, act, on_gpu) + tokenBytes(s);
}

inline double batchBytes(const StepShape& s) {
  return value(s, kBatch) * value(s, kSeq) * value(s, kWidth) * 4 + value(s, kBatch) * 8.0;
}

inline double gptParameters(const StepShape& s) {
  const double d = value(s, kWidth);
  return value(s, kVocab) * d + value(s, kSeq) * d + blockParameters(s) + d * value(s, kVocab);
}

inline double gptFlopPerStep(const StepShape& s, std::int64_t rows) {
  const double d = value(s, kWidth);
  const double seq = value(s, kSeq);
  // As the transformer's, with causal attention doing half of the s x d products (flash and
  // cuDNN kernels skip the masked half) and a head of 2d x vocab per token.
  const double per_token =
      value(s, kLayers) * (24 * d * d + 2 * seq * d) + 2 * d * value(s, kVocab);
  return 3 * static_cast<double>(rows) * seq * per_token;
}

inline double gptActivations(const StepShape& s, double act, bool on_gpu) {
  const double tokens = value(s, kBatch) * value(s, kSeq);
  // Logits in the autocast dtype, their fp32 copy and the log-softmax kept for backward.
  return blockActivations(s, act, on_gpu) + tokens * value(s, kVocab) * (act + 4 + 4) +
         tokenBytes(s);
}

inline double gptBatchBytes(const StepShape& s) {
  return 2.0 * value(s, kBatch) * value(s, kSeq) * 8;
}

}  // namespace transformer_model

inline constexpr StepModelDescriptor kTransformerModel = {
    .name = "transformer",
    .reproduces = "",
    .shape = transformer_model::kShape,
    .sizing = transformer_model::kSizing,
    .parameters = transformer_model::parameters,
    .batch = transformer_model::batch,
    .flop_per_step = transformer_model::flopPerStep,
    .activations = transformer_model::activations,
    .batch_bytes = transformer_model::batchBytes,
    .shape_refusal = transformer_model::headsRefusal,
};

inline constexpr StepModelDescriptor kGptModel = {
    .name = "gpt",
    .reproduces = "",
    .shape = transformer_model::kGptShape,
    .sizing = transformer_model::kGptSizing,
    .parameters = transformer_model::gptParameters,
    .batch = transformer_model::batch,
    .flop_per_step = transformer_model::gptFlopPerStep,
    .activations = transformer_model::gptActivations,
    .batch_bytes = transformer_model::gptBatchBytes,
    .shape_refusal = transformer_model::headsRefusal,
};

}  // namespace splitstep
