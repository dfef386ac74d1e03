// llama: Hugging Face transformers' LlamaForCausalLM as it trains (sdpa attention, use_cache off),
// at a Llama-3.2-1B-like config: token embedding, N decoder layers (RMSNorm, grouped-query
// attention with rotary embeddings of the llama3 type, RMSNorm, SwiGLU MLP), a final RMSNorm and
// a language-model head tied to the embedding; the loss is the library's causal-LM loss (labels =
// input ids, shifted by one, cross-entropy mean). Its module is models/LlamaModule.cpp; what it
// reproduces, op by op, is docs/models/llama.md.
#pragma once

#include <string>

#include "models/StepModel.hpp"

namespace splitstep {
namespace llama_model {

using namespace shape_limits;

// Defaults: Llama-3.2-1B's config (meta-llama/Llama-3.2-1B, config.json).
inline constexpr ShapeOption kLayers = {"llama-layers", 16, 1, kMaxLayers,
                                        "step llama: decoder layers (num_hidden_layers)"};
inline constexpr ShapeOption kHidden = {
    "llama-hidden", 2048, 2, kMaxWidth,
    "step llama: hidden size (a multiple of --llama-heads, with an even head size)"};
inline constexpr ShapeOption kIntermediate = {"llama-intermediate", 8192, 1, 4 * kMaxWidth,
                                              "step llama: the SwiGLU MLP's intermediate size"};
inline constexpr ShapeOption kHeads = {"llama-heads", 32, 1, kMaxLayers,
                                       "step llama: attention (query) heads"};
inline constexpr ShapeOption kKvHeads = {
    "llama-kv-heads", 8, 1, kMaxLayers,
    "step llama: key-value heads of grouped-query attention (dividing --llama-heads)"};
inline constexpr ShapeOption kVocab = {"llama-vocab", 128256, 2, 1 << 20,
                                       "step llama: vocabulary (embedding and tied head)"};
// At least two tokens: the loss predicts each token from the ones before it. At most the
// config's max_position_embeddings.
inline constexpr ShapeOption kSeq = {"llama-seq", 2048, 2, 131072,
                                     "step llama: tokens per sequence"};
inline constexpr ShapeOption kBatch = {"llama-batch", 8, 1, kMaxBatch,
                                       "step llama: sequences per rank"};
inline constexpr const ShapeOption* kShape[] = {&kLayers,  &kHidden, &kIntermediate, &kHeads,
                                                &kKvHeads, &kVocab,  &kSeq,          &kBatch};
inline constexpr const ShapeOption* kSizing[] = {&kBatch,  &kSeq,          &kLayers,
                                                 &kHidden, &kIntermediate, &kVocab};

inline double value(const StepShape& s, const ShapeOption& option) {
  return static_cast<double>(s[option]);
}

// The key and value projections' width: kv heads x head size.
inline double kvWidth(const StepShape& s) {
  return value(s, kKvHeads) * value(s, kHidden) / value(s, kHeads);
}

// The embedding (which the head shares), per layer q and o (h x h), k and v (h x kv), gate, up
// and down (h x intermediate) and two RMSNorm weights, and the final norm. No biases.
inline double parameters(const StepShape& s) {
  const double h = value(s, kHidden);
  const double per_layer = 2 * h * h + 2 * h * kvWidth(s) + 3 * h * value(s, kIntermediate) + 2 * h;
  return value(s, kVocab) * h + value(s, kLayers) * per_layer + h;
}

inline std::int64_t batch(const StepShape& s) { return s[kBatch]; }

// FLOPs (two per multiply-add) per token and layer: q and o 4h^2, k and v 4h kv, the MLP's three
// products 6h i, and causal attention's two products over half of the seq x head-size pairs
// 2 seq h (flash and cuDNN kernels skip the masked half); the head adds 2h vocab per token.
// Backward twice the forward.
inline double flopPerStep(const StepShape& s, std::int64_t rows) {
  const double h = value(s, kHidden);
  const double seq = value(s, kSeq);
  const double per_layer =
      4 * h * h + 4 * h * kvWidth(s) + 6 * h * value(s, kIntermediate) + 2 * seq * h;
  const double per_token = value(s, kLayers) * per_layer + 2 * h * value(s, kVocab);
  return 3 * static_cast<double>(rows) * seq * per_token;
}

// Bytes kept for backward, counted from the ops that save them, and the loss's buffers at the
// start of backward. Per token and layer: each RMSNorm keeps its fp32 input and normalised fp32
// output (8h) and the products' input (act h: the autocast copy, or the fp32 output); attention
// keeps q, k and v after the rotation and its output (act (2h + 2 kv)); the MLP keeps gate's
// output, SiLU's, up's and their product (4 act i). The head keeps the final norm's; per
// vocabulary entry the logits and their gradient (2 act), the log-softmax, its gradient and the
// logits' fp32 gradient (12); the embedding's fp32 output starts the residual stream. sdpa's
// kernels keep O(seq) per head on the GPU and on the CPU alike (the CPU runs its flash kernel),
// so `on_gpu` changes nothing. On an H200 the library's model at the preset (batch 8, bf16,
// AdamW foreach, one GPU) peaked at 76.8 GB allocated, against this bound's 91.9 GB.
inline double activations(const StepShape& s, double act, bool) {
  const double h = value(s, kHidden);
  const double tokens = value(s, kBatch) * value(s, kSeq);
  const double per_layer =
      2 * (8 * h + act * h) + act * (2 * h + 2 * kvWidth(s)) + 4 * act * value(s, kIntermediate);
  const double head = (8 * h + act * h) + value(s, kVocab) * (2 * act + 12) + 4 * h;
  return tokens * (value(s, kLayers) * per_layer + head);
}

// The token ids as input and as labels (int64).
inline double batchBytes(const StepShape& s) { return 2.0 * value(s, kBatch) * value(s, kSeq) * 8; }

inline std::optional<std::string> headsRefusal(const StepShape& s) {
  if (s[kHidden] % s[kHeads] != 0) {
    return "--llama-heads: " + std::to_string(s[kHeads]) + " does not divide --llama-hidden " +
           std::to_string(s[kHidden]);
  }
  if (s[kHeads] % s[kKvHeads] != 0) {
    return "--llama-kv-heads: " + std::to_string(s[kKvHeads]) + " does not divide --llama-heads " +
           std::to_string(s[kHeads]);
  }
  // The rotary embedding rotates the two halves of each head.
  if ((s[kHidden] / s[kHeads]) % 2 != 0) {
    return "--llama-heads: a head size of " + std::to_string(s[kHidden] / s[kHeads]) +
           " (--llama-hidden / --llama-heads) is odd; rotary embeddings need an even one";
  }
  return std::nullopt;
}

// The architecture (not the tokens or batch), and the other Llama that ties its head as this one
// does: Llama-3.2-3B's config (Llama-3.1-8B's head is untied, another parameter count).
inline constexpr const ShapeOption* kArchitecture[] = {&kLayers, &kHidden,  &kIntermediate,
                                                       &kHeads,  &kKvHeads, &kVocab};
inline constexpr ShapeValue kLlama32_3B[] = {{&kLayers, 28},         {&kHidden, 3072},
                                             {&kIntermediate, 8192}, {&kHeads, 24},
                                             {&kKvHeads, 8},         {&kVocab, 128256}};
inline constexpr NamedShape kNamedShapes[] = {{"llama-3.2-3b", kLlama32_3B}};

}  // namespace llama_model

inline constexpr StepModelDescriptor kLlamaModel = {
    .name = "llama",
    .reproduces =
        "transformers 5.24.0 LlamaForCausalLM (LlamaConfig of Llama-3.2-1B: llama3 rope, "
        "tied head; attn_implementation=sdpa, use_cache=False)",
    .shape = llama_model::kShape,
    .sizing = llama_model::kSizing,
    .parameters = llama_model::parameters,
    .batch = llama_model::batch,
    .flop_per_step = llama_model::flopPerStep,
    .activations = llama_model::activations,
    .batch_bytes = llama_model::batchBytes,
    .shape_refusal = llama_model::headsRefusal,
    .architecture = llama_model::kArchitecture,
    .named_shapes = llama_model::kNamedShapes,
};

}  // namespace splitstep
