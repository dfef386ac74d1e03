// gpt2: Hugging Face transformers' GPT2LMHeadModel at GPT2Config's defaults (GPT-2 small), sdpa
// attention, the language-model head tied to the token embedding, trained on the library's
// shifted next-token cross-entropy. Its module is models/Gpt2Module.cpp; docs/models/gpt2.md
// says what it reproduces op by op and what differs.
#pragma once

#include <string>

#include "models/StepModel.hpp"

namespace splitstep {
namespace gpt2_model {

using namespace shape_limits;

// GPT2Config's names and defaults: n_layer, n_embd, n_head, n_positions, vocab_size.
inline constexpr ShapeOption kLayers = {"gpt2-layers", 12, 1, kMaxLayers,
                                        "step gpt2: blocks (GPT2Config n_layer)"};
inline constexpr ShapeOption kWidth = {
    "gpt2-width", 768, 1, kMaxWidth, "step gpt2: model width (n_embd, a multiple of --gpt2-heads)"};
inline constexpr ShapeOption kHeads = {"gpt2-heads", 12, 1, kMaxLayers,
                                       "step gpt2: attention heads (n_head)"};
inline constexpr ShapeOption kPositions = {
    "gpt2-positions", 1024, 1, 1 << 20,
    "step gpt2: learned positions (n_positions, at least --gpt2-seq)"};
inline constexpr ShapeOption kVocab = {"gpt2-vocab", 50257, 2, 1 << 20,
                                       "step gpt2: vocabulary (vocab_size)"};
inline constexpr ShapeOption kSeq = {"gpt2-seq", 1024, 1, 1 << 20, "step gpt2: tokens per sample"};
inline constexpr ShapeOption kBatch = {"gpt2-batch", 16, 1, kMaxBatch, "step gpt2: batch per rank"};
// resid_pdrop, embd_pdrop and attn_pdrop together, in percent: GPT2Config's 0.1 by default.
inline constexpr ShapeOption kDropoutPct = {
    "gpt2-dropout-pct", 10, 0, 100,
    "step gpt2: dropout in percent (resid_pdrop, embd_pdrop, attn_pdrop)"};
// GPT2Config's use_cache (True): the model builds a DynamicCache in training too, whose update
// copies every layer's keys and values (torch.cat onto an empty tensor).
inline constexpr ShapeOption kUseCache = {
    "gpt2-use-cache", 1, 0, 1,
    "step gpt2: 1 as GPT2Config's use_cache=True (keys and values copied into a cache), 0 off"};
inline constexpr const ShapeOption* kShape[] = {
    &kLayers, &kWidth, &kHeads, &kPositions, &kVocab, &kSeq, &kBatch, &kDropoutPct, &kUseCache};
inline constexpr const ShapeOption* kSizing[] = {&kBatch, &kSeq, &kWidth, &kLayers, &kVocab};

inline double value(const StepShape& s, const ShapeOption& option) {
  return static_cast<double>(s[option]);
}

// wte (vocab x d), wpe (positions x d), per block ln_1, c_attn (d x 3d + 3d), c_proj (d x d + d),
// ln_2, c_fc (d x 4d + 4d), c_proj (4d x d + d): 12d^2 + 13d; ln_f. lm_head is wte's weight.
inline double parameters(const StepShape& s) {
  const double d = value(s, kWidth);
  return (value(s, kVocab) + value(s, kPositions)) * d + value(s, kLayers) * (12 * d * d + 13 * d) +
         2 * d;
}

inline std::int64_t batch(const StepShape& s) { return s[kBatch]; }

inline double flopPerStep(const StepShape& s, std::int64_t rows) {
  const double d = value(s, kWidth);
  const double seq = value(s, kSeq);
  // FLOPs (two per multiply-add) per token and block: c_attn 6d^2, c_proj 2d^2, c_fc 8d^2, the
  // MLP's c_proj 8d^2, and attention's two seq x d products at half (causal: flash and cuDNN
  // skip the masked half) 2·seq·d; per token the tied head 2d·vocab. Embedding lookups have
  // none. Backward twice the forward.
  const double per_token =
      value(s, kLayers) * (24 * d * d + 2 * seq * d) + 2 * d * value(s, kVocab);
  return 3 * static_cast<double>(rows) * seq * per_token;
}

// Bytes kept for backward per token and block, counted from the ops that save them: ln_1's and
// ln_2's inputs (the fp32 residual stream), their outputs as the products take them, c_attn's
// output (q, k and v are views of it), the cache's copies of k and v, the attention's output,
// c_fc's output and gelu_new's three intermediates of that size (0.5x, tanh, 1 + tanh), its
// output (c_proj's input), two dropout masks of a byte per value.
inline double blockBytesPerToken(const StepShape& s, double act) {
  const double cache = static_cast<double>(s[kUseCache]);
  return value(s, kWidth) * (2 * 4 + (2 + 3 + 2 * cache + 1 + 4 + 12 + 4) * act + 2);
}

inline double activations(const StepShape& s, double act, bool on_gpu) {
  const double tokens = value(s, kBatch) * value(s, kSeq);
  double bytes = value(s, kLayers) * tokens * blockBytesPerToken(s, act);
  if (!on_gpu) {  // the CPU's math attention keeps the scores and their softmax
    bytes += value(s, kLayers) * value(s, kBatch) * value(s, kHeads) * value(s, kSeq) *
             value(s, kSeq) * 2 * act;
  }
  // ln_f's input and output; the logits, their fp32 copy (.float()) and the log-softmax.
  return bytes + tokens * value(s, kWidth) * (4 + act) + tokens * value(s, kVocab) * (act + 4 + 4);
}

// Token ids and labels (the same ids), int64.
inline double batchBytes(const StepShape& s) { return 2.0 * value(s, kBatch) * value(s, kSeq) * 8; }

inline std::optional<std::string> shapeRefusal(const StepShape& s) {
  if (s[kWidth] % s[kHeads] != 0) {
    return "--gpt2-heads: " + std::to_string(s[kHeads]) + " does not divide --gpt2-width " +
           std::to_string(s[kWidth]);
  }
  if (s[kSeq] > s[kPositions]) {
    return "--gpt2-seq: " + std::to_string(s[kSeq]) + " tokens, more than the " +
           std::to_string(s[kPositions]) + " of --gpt2-positions";
  }
  return std::nullopt;
}

// The architecture (not the tokens, batch, dropout or cache), and the other GPT-2 sizes that
// transformers names (its GPT-2 checkpoints' configs, n_positions 1024 and the 50257 tokens).
inline constexpr const ShapeOption* kArchitecture[] = {&kLayers, &kWidth, &kHeads, &kPositions,
                                                       &kVocab};
inline constexpr ShapeValue kDistil[] = {
    {&kLayers, 6}, {&kWidth, 768}, {&kHeads, 12}, {&kPositions, 1024}, {&kVocab, 50257}};
inline constexpr ShapeValue kMedium[] = {
    {&kLayers, 24}, {&kWidth, 1024}, {&kHeads, 16}, {&kPositions, 1024}, {&kVocab, 50257}};
inline constexpr ShapeValue kLarge[] = {
    {&kLayers, 36}, {&kWidth, 1280}, {&kHeads, 20}, {&kPositions, 1024}, {&kVocab, 50257}};
inline constexpr ShapeValue kXl[] = {
    {&kLayers, 48}, {&kWidth, 1600}, {&kHeads, 25}, {&kPositions, 1024}, {&kVocab, 50257}};
inline constexpr NamedShape kNamedShapes[] = {
    {"distilgpt2", kDistil},
    {"gpt2-medium", kMedium},
    {"gpt2-large", kLarge},
    {"gpt2-xl", kXl},
};

}  // namespace gpt2_model

inline constexpr StepModelDescriptor kGpt2Model = {
    .name = "gpt2",
    .reproduces = "transformers 5.24.0 GPT2LMHeadModel(GPT2Config(attn_implementation='sdpa'))",
    .shape = gpt2_model::kShape,
    .sizing = gpt2_model::kSizing,
    .parameters = gpt2_model::parameters,
    .batch = gpt2_model::batch,
    .flop_per_step = gpt2_model::flopPerStep,
    .activations = gpt2_model::activations,
    .batch_bytes = gpt2_model::batchBytes,
    .shape_refusal = gpt2_model::shapeRefusal,
    .architecture = gpt2_model::kArchitecture,
    .named_shapes = gpt2_model::kNamedShapes,
};

}  // namespace splitstep
