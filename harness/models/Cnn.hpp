// cnn: a stem convolution and `blocks` residual blocks (Conv2d, BatchNorm2d, ReLU) at `channels`,
// global average pooling and a classifier (cross-entropy loss), on image x image RGB input. Its
// module is models/CnnModule.cpp.
#pragma once

#include "models/StepModel.hpp"

namespace splitstep {
namespace cnn_model {

using namespace shape_limits;

inline constexpr ShapeOption kBlocks = {"cnn-blocks", 8, 1, kMaxLayers,
                                        "step cnn: residual blocks"};
inline constexpr ShapeOption kChannels = {"cnn-channels", 128, 1, kMaxWidth, "step cnn: channels"};
inline constexpr ShapeOption kImage = {"cnn-image", 64, 8, 8192,
                                       "step cnn: image side in pixels (at least 8)"};
inline constexpr ShapeOption kBatch = {"cnn-batch", 128, 1, kMaxBatch, "step cnn: batch per rank"};
inline constexpr const ShapeOption* kShape[] = {&kBlocks, &kChannels, &kImage, &kBatch};
inline constexpr const ShapeOption* kSizing[] = {&kChannels, &kBlocks, &kImage, &kBatch};

inline double value(const StepShape& s, const ShapeOption& option) {
  return static_cast<double>(s[option]);
}

inline double parameters(const StepShape& s) {
  const double c = value(s, kChannels);
  const double classes = kClassifierClasses;
  return 27 * c + 2 * c + value(s, kBlocks) * (18 * c * c + 4 * c) + (c * classes + classes);
}

inline std::int64_t batch(const StepShape& s) { return s[kBatch]; }

inline double flopPerStep(const StepShape& s, std::int64_t rows) {
  const double c = value(s, kChannels);
  const double pixels = value(s, kImage) * value(s, kImage);
  // 3x3 convolutions: 2 x 9 x in x out FLOPs per output pixel.
  const double per_sample =
      pixels * 18 * c * (3 + 2 * value(s, kBlocks) * c) + 2 * c * kClassifierClasses;
  return 3 * static_cast<double>(rows) * per_sample;
}

inline double activations(const StepShape& s, double act, bool) {
  const double plane = value(s, kBatch) * value(s, kChannels) * value(s, kImage) * value(s, kImage);
  // Per residual block: both convolutions' inputs, both norms' inputs and outputs, the ReLUs'
  // outputs and the residual sum.
  return value(s, kBlocks) * plane * 8 * act + plane * 3 * act +
         3.0 * value(s, kBatch) * value(s, kImage) * value(s, kImage) * 4;
}

inline double batchBytes(const StepShape& s) {
  return value(s, kBatch) * 3 * value(s, kImage) * value(s, kImage) * 4 + value(s, kBatch) * 8.0;
}

}  // namespace cnn_model

inline constexpr StepModelDescriptor kCnnModel = {
    .name = "cnn",
    .reproduces = "",
    .shape = cnn_model::kShape,
    .sizing = cnn_model::kSizing,
    .parameters = cnn_model::parameters,
    .batch = cnn_model::batch,
    .flop_per_step = cnn_model::flopPerStep,
    .activations = cnn_model::activations,
    .batch_bytes = cnn_model::batchBytes,
    .shape_refusal = nullptr,
};

}  // namespace splitstep
