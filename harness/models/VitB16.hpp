// vit-b16: timm's vit_base_patch16_224 (timm.models.vision_transformer.VisionTransformer) layer for
// layer: a 16x16 convolutional patch embedding of image x image RGB input, a class token
// concatenated in front of the patches, a learned position embedding added over all tokens,
// pre-norm blocks (LayerNorm, fused-qkv self-attention through scaled_dot_product_attention,
// LayerNorm, MLP of 4x width with exact GELU), a final LayerNorm and a linear head on the class
// token (cross-entropy on 1000 classes). Its module is models/VitB16Module.cpp;
// docs/models/vit-b16.md says what it reproduces and how.
#pragma once

#include <optional>
#include <string>

#include "models/StepModel.hpp"

namespace splitstep {
namespace vit_b16_model {

using namespace shape_limits;

// The options are VisionTransformer's keyword arguments (depth, embed_dim, num_heads,
// patch_size, img_size), named after the family: at --vit-patch 8 the model is no longer B/16.
inline constexpr ShapeOption kLayers = {"vit-layers", 12, 1, kMaxLayers,
                                        "step vit-b16: encoder blocks (timm's depth)"};
inline constexpr ShapeOption kWidth = {
    "vit-width", 768, 1, kMaxWidth,
    "step vit-b16: embedding width (timm's embed_dim, a multiple of --vit-heads)"};
inline constexpr ShapeOption kHeads = {"vit-heads", 12, 1, kMaxLayers,
                                       "step vit-b16: attention heads (timm's num_heads)"};
inline constexpr ShapeOption kPatch = {"vit-patch", 16, 1, 1024,
                                       "step vit-b16: patch side in pixels (timm's patch_size)"};
inline constexpr ShapeOption kImage = {
    "vit-image", 224, 1, 8192,
    "step vit-b16: image side in pixels (timm's img_size, at least --vit-patch)"};
inline constexpr ShapeOption kBatch = {"vit-batch", 128, 1, kMaxBatch,
                                       "step vit-b16: batch per rank"};
inline constexpr const ShapeOption* kShape[] = {&kLayers, &kWidth, &kHeads,
                                                &kPatch,  &kImage, &kBatch};
inline constexpr const ShapeOption* kSizing[] = {&kWidth, &kLayers, &kImage, &kBatch};

// timm's mlp_ratio: the MLP's hidden width over the embedding width.
inline constexpr std::int64_t kMlpRatio = 4;

inline double value(const StepShape& s, const ShapeOption& option) {
  return static_cast<double>(s[option]);
}

// Patches per image: the convolution's output grid, (image / patch)^2 (the remainder dropped).
inline double patches(const StepShape& s) {
  const double grid = static_cast<double>(s[kImage] / s[kPatch]);
  return grid * grid;
}

// The class token and the patches.
inline double tokens(const StepShape& s) { return patches(s) + 1; }

inline double parameters(const StepShape& s) {
  const double d = value(s, kWidth);
  const double p = value(s, kPatch);
  const double classes = kClassifierClasses;
  const double hidden = static_cast<double>(kMlpRatio) * d;
  // norm1, qkv (3d x d and bias), proj, norm2, fc1, fc2.
  const double block =
      2 * d + (3 * d * d + 3 * d) + (d * d + d) + 2 * d + (hidden * d + hidden) + (d * hidden + d);
  return (3 * p * p * d + d) + d + tokens(s) * d + value(s, kLayers) * block + 2 * d +
         (d * classes + classes);
}

inline std::int64_t batch(const StepShape& s) { return s[kBatch]; }

inline double flopPerStep(const StepShape& s, std::int64_t rows) {
  const double d = value(s, kWidth);
  const double p = value(s, kPatch);
  const double seq = tokens(s);
  const double hidden = static_cast<double>(kMlpRatio) * d;
  // Forward FLOPs (two per multiply-add) per token and block: qkv 6d^2, proj 2d^2, fc1 and fc2
  // 2 x 2d x hidden, the attention's two seq x d products 4 seq d; 2d x classes per sample for
  // the head. Their backward computes gradients of inputs and weights: twice the forward.
  const double per_sample = value(s, kLayers) * seq * (8 * d * d + 4 * d * hidden + 4 * seq * d) +
                            2 * d * kClassifierClasses;
  // The patch embedding: 2 x (3 p^2) x d per patch; its backward computes the weight's gradient
  // alone (the images need none): once the forward.
  const double embedding = patches(s) * 2 * 3 * p * p * d;
  return static_cast<double>(rows) * (3 * per_sample + 2 * embedding);
}

// A bound on what forward keeps for backward, counted from the ops' saved tensors. Per token and
// block: the norms' inputs and outputs (fp32), the products' inputs (cast copies under autocast),
// q, k and v, the attention output and its reshaped copy, the MLP's hidden activation before and
// after GELU. On the CPU, sdpa's math path keeps the seq x seq attention weights too.
inline double activations(const StepShape& s, double act, bool on_gpu) {
  const double d = value(s, kWidth);
  const double rows = value(s, kBatch);
  const double seq = tokens(s);
  const double per_token_block =
      d * (4 * 4 + 2 * act + 3 * act + 2 * act + 2 * static_cast<double>(kMlpRatio) * act);
  double bytes = value(s, kLayers) * rows * seq * per_token_block;
  if (!on_gpu) bytes += value(s, kLayers) * rows * value(s, kHeads) * seq * seq * 2 * act;
  const double pixels = 3 * value(s, kImage) * value(s, kImage);
  // The images cast for the convolution, its output, the concatenation and the sum with the
  // position embedding (fp32), the final norm's input and output, the logits in the autocast
  // dtype, their fp32 copy and the log-softmax.
  return bytes + rows * (pixels * act + patches(s) * d * act + seq * d * 4 * 4 +
                         kClassifierClasses * (act + 4 + 4));
}

inline double batchBytes(const StepShape& s) {
  return value(s, kBatch) * 3 * value(s, kImage) * value(s, kImage) * 4 + value(s, kBatch) * 8.0;
}

inline std::optional<std::string> shapeRefusal(const StepShape& s) {
  if (s[kWidth] % s[kHeads] != 0) {
    return "--vit-heads: " + std::to_string(s[kHeads]) + " does not divide --vit-width " +
           std::to_string(s[kWidth]);
  }
  if (s[kPatch] > s[kImage]) {
    return "--vit-patch: " + std::to_string(s[kPatch]) + " is larger than --vit-image " +
           std::to_string(s[kImage]);
  }
  return std::nullopt;
}

// The architecture, and the other ViTs timm names at image 224 (its vision_transformer.py).
inline constexpr const ShapeOption* kArchitecture[] = {&kLayers, &kWidth, &kHeads, &kPatch,
                                                       &kImage};
inline constexpr ShapeValue kTiny16[] = {
    {&kLayers, 12}, {&kWidth, 192}, {&kHeads, 3}, {&kPatch, 16}, {&kImage, 224}};
inline constexpr ShapeValue kSmall16[] = {
    {&kLayers, 12}, {&kWidth, 384}, {&kHeads, 6}, {&kPatch, 16}, {&kImage, 224}};
inline constexpr ShapeValue kBase32[] = {
    {&kLayers, 12}, {&kWidth, 768}, {&kHeads, 12}, {&kPatch, 32}, {&kImage, 224}};
inline constexpr ShapeValue kLarge16[] = {
    {&kLayers, 24}, {&kWidth, 1024}, {&kHeads, 16}, {&kPatch, 16}, {&kImage, 224}};
inline constexpr ShapeValue kHuge14[] = {
    {&kLayers, 32}, {&kWidth, 1280}, {&kHeads, 16}, {&kPatch, 14}, {&kImage, 224}};
inline constexpr NamedShape kNamedShapes[] = {
    {"vit-ti16", kTiny16},  // vit_tiny_patch16_224
    {"vit-s16", kSmall16},  // vit_small_patch16_224
    {"vit-b32", kBase32},   // vit_base_patch32_224
    {"vit-l16", kLarge16},  // vit_large_patch16_224
    {"vit-h14", kHuge14},   // vit_huge_patch14_224
};

}  // namespace vit_b16_model

inline constexpr StepModelDescriptor kVitB16Model = {
    .name = "vit-b16",
    .reproduces =
        "timm 1.0.31 VisionTransformer vit_base_patch16_224 (timm.create_model, pretrained=False)",
    .shape = vit_b16_model::kShape,
    .sizing = vit_b16_model::kSizing,
    .parameters = vit_b16_model::parameters,
    .batch = vit_b16_model::batch,
    .flop_per_step = vit_b16_model::flopPerStep,
    .activations = vit_b16_model::activations,
    .batch_bytes = vit_b16_model::batchBytes,
    .shape_refusal = vit_b16_model::shapeRefusal,
    .architecture = vit_b16_model::kArchitecture,
    .named_shapes = vit_b16_model::kNamedShapes,
};

}  // namespace splitstep
