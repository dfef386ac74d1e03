// resnet50: torchvision's ResNet-50 (torchvision.models.resnet50, weights=None), its "V1.5"
// bottlenecks with the stride on the 3x3 convolution: a 7x7 stride-2 stem convolution, batch
// norm, ReLU and a 3x3 stride-2 max-pool, four layers of [3, 4, 6, 3] bottlenecks (1x1, 3x3, 1x1
// convolutions, each followed by batch norm in training mode, the first block of each layer
// with a 1x1 convolution and batch norm on its shortcut), global average pooling and a
// Linear(2048, 1000) classifier (cross-entropy against class labels), on image x image RGB
// input. Its module is models/ResNet50Module.cpp; docs/models/resnet50.md says what it
// reproduces and how.
#pragma once

#include <array>
#include <string>

#include "models/StepModel.hpp"

namespace splitstep {
namespace resnet50_model {

using namespace shape_limits;

inline constexpr ShapeOption kImage = {"resnet50-image", 224, 8, 8192,
                                       "step resnet50: image side in pixels"};
inline constexpr ShapeOption kBatch = {"resnet50-batch", 256, 1, kMaxBatch,
                                       "step resnet50: batch per rank"};
// torchvision's width_per_group: the bottlenecks' inner width in their first layer (64 in
// resnet50, 128 in wide_resnet50_2); the blocks' outputs stay 256, 512, 1024, 2048.
inline constexpr ShapeOption kWidth = {
    "resnet50-width", 64, 1, 1024,
    "step resnet50: torchvision's width_per_group (bottleneck width of layer1)"};
inline constexpr ShapeOption kChannelsLast = {
    "resnet50-channels-last", 0, 0, 1,
    "step resnet50: 1 = weights and batch in channels_last memory format, 0 = contiguous NCHW"};
inline constexpr const ShapeOption* kShape[] = {&kImage, &kBatch, &kWidth, &kChannelsLast};
inline constexpr const ShapeOption* kSizing[] = {&kBatch, &kImage, &kWidth};

inline constexpr std::array<std::int64_t, 4> kBlocks = {3, 4, 6, 3};
inline constexpr std::int64_t kStemChannels = 64;
inline constexpr std::int64_t kExpansion = 4;
inline constexpr double kFeatures = 512 * kExpansion;  // the classifier's input

inline double value(const StepShape& s, const ShapeOption& option) {
  return static_cast<double>(s[option]);
}

// The side after a stride-2 convolution or pooling with "same" padding (the stem's 7x7 with
// padding 3, the max-pool's 3x3 with padding 1, the 3x3 and 1x1 convolutions of layers 2-4):
// floor((side - 1) / 2) + 1.
constexpr std::int64_t halved(std::int64_t side) { return (side - 1) / 2 + 1; }

// One bottleneck as torchvision's Bottleneck builds it: `in` channels at side `in_side` in,
// `mid` (planes x width_per_group / 64) inside, `out` = 4 x planes at side `out_side` out, a
// shortcut convolution when `shortcut` (the first block of a layer).
struct Block {
  double in, mid, out, in_side, out_side;
  bool shortcut;
};

// Calls `visit(block)` for each of the 16 bottlenecks in order.
template <typename Visit>
void forEachBlock(const StepShape& s, Visit visit) {
  double in = kStemChannels;
  std::int64_t side = halved(halved(s[kImage]));  // after the stem's convolution and max-pool
  for (std::size_t layer = 0; layer < kBlocks.size(); ++layer) {
    const double scale = static_cast<double>(std::int64_t{1} << layer);
    const double mid = value(s, kWidth) * scale;
    const double out = kStemChannels * kExpansion * scale;
    const std::int64_t out_side = layer == 0 ? side : halved(side);
    for (std::int64_t i = 0; i < kBlocks[layer]; ++i) {
      visit(Block{in, mid, out, static_cast<double>(i == 0 ? side : out_side),
                  static_cast<double>(out_side), i == 0});
      in = out;
    }
    side = out_side;
  }
}

inline double parameters(const StepShape& s) {
  // Convolutions have no bias; each batch norm a weight and a bias per channel.
  double count = 3.0 * kStemChannels * 49 + 2 * kStemChannels;
  forEachBlock(s, [&count](const Block& b) {
    count += b.in * b.mid + 9 * b.mid * b.mid + b.mid * b.out + 2 * (2 * b.mid + b.out);
    if (b.shortcut) count += b.in * b.out + 2 * b.out;
  });
  return count + kFeatures * kClassifierClasses + kClassifierClasses;
}

inline std::int64_t batch(const StepShape& s) { return s[kBatch]; }

inline double flopPerStep(const StepShape& s, std::int64_t rows) {
  // A convolution: 2 x kernel area x in x out FLOPs per output pixel; the classifier 2 x 2048 x
  // 1000 per sample. Pooling, norms, ReLUs and adds are not counted.
  const double stem_side = static_cast<double>(halved(s[kImage]));
  double forward = 2.0 * 49 * 3 * kStemChannels * stem_side * stem_side;
  forEachBlock(s, [&forward](const Block& b) {
    const double out_pixels = b.out_side * b.out_side;
    forward += 2 * b.in * b.mid * b.in_side * b.in_side +
               2 * (9 * b.mid * b.mid + b.mid * b.out) * out_pixels;
    if (b.shortcut) forward += 2 * b.in * b.out * out_pixels;
  });
  forward += 2 * kFeatures * kClassifierClasses;
  return 3 * static_cast<double>(rows) * forward;
}

inline double activations(const StepShape& s, double act, bool) {
  // Per sample, counted from the tensors autograd keeps: the image's autocast copy; the stem's
  // convolution output (its norm's input), its ReLU's output (the max-pool's input), the
  // max-pool's output and its int64 indices; per bottleneck the outputs of its three
  // convolutions (the norms' inputs), of its two inner ReLUs (the next convolutions' inputs),
  // of the shortcut's convolution, and the block's output (its last norm's output, to which
  // the shortcut is added and ReLU applied in place); the pooled features, the logits and
  // the loss's fp32 log-softmax and its input's cast.
  const double image = value(s, kImage);
  const double stem_side = static_cast<double>(halved(s[kImage]));
  const double pool_side = static_cast<double>(halved(halved(s[kImage])));
  double per_sample = 3 * image * image * act + 2 * kStemChannels * stem_side * stem_side * act +
                      kStemChannels * pool_side * pool_side * (act + 8);
  forEachBlock(s, [&per_sample, act](const Block& b) {
    const double in_pixels = b.in_side * b.in_side;
    const double out_pixels = b.out_side * b.out_side;
    per_sample += (2 * b.mid * in_pixels + 2 * b.mid * out_pixels +
                   (b.shortcut ? 3 : 2) * b.out * out_pixels) *
                  act;
  });
  per_sample += kFeatures * act + kClassifierClasses * (act + 4 + 4);
  return value(s, kBatch) * per_sample;
}

inline double batchBytes(const StepShape& s) {
  return value(s, kBatch) * 3 * value(s, kImage) * value(s, kImage) * 4 + value(s, kBatch) * 8.0;
}

// Batch norm in training mode needs more than one value per channel; layer4's output is the
// smallest (image / 32 on a side).
inline std::optional<std::string> shapeRefusal(const StepShape& s) {
  const std::int64_t side = halved(halved(halved(halved(halved(s[kImage])))));
  if (s[kBatch] * side * side > 1) return std::nullopt;
  return "--resnet50-batch 1 with --resnet50-image " + std::to_string(s[kImage]) +
         " leaves layer4 one value per channel, which batch norm in training mode refuses: " +
         "raise either";
}

// The architecture (not the image, batch or memory format), and torchvision's wider ResNet-50.
inline constexpr const ShapeOption* kArchitecture[] = {&kWidth};
inline constexpr ShapeValue kWide2[] = {{&kWidth, 128}};
inline constexpr NamedShape kNamedShapes[] = {{"wide-resnet50-2", kWide2}};  // wide_resnet50_2

}  // namespace resnet50_model

inline constexpr StepModelDescriptor kResNet50Model = {
    .name = "resnet50",
    .reproduces =
        "torchvision 0.26.0 torchvision.models.resnet50(weights=None, "
        "width_per_group), training mode",
    .shape = resnet50_model::kShape,
    .sizing = resnet50_model::kSizing,
    .parameters = resnet50_model::parameters,
    .batch = resnet50_model::batch,
    .flop_per_step = resnet50_model::flopPerStep,
    .activations = resnet50_model::activations,
    .batch_bytes = resnet50_model::batchBytes,
    .shape_refusal = resnet50_model::shapeRefusal,
    .architecture = resnet50_model::kArchitecture,
    .named_shapes = resnet50_model::kNamedShapes,
};

}  // namespace splitstep
