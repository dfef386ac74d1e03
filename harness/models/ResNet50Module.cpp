// resnet50's module (models/ResNet50.hpp declares the model): torchvision's ResNet with its
// Bottleneck blocks, module for module and op for op (docs/models/resnet50.md). Parameters and
// submodules carry torchvision's names in its registration order, so that its state dict
// loads as it is.
#include <ATen/ops/adaptive_avg_pool2d.h>
#include <ATen/ops/flatten.h>
#include <ATen/ops/max_pool2d.h>
#include <c10/core/GradMode.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/init.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>

#include "models/ModuleParts.hpp"
#include "models/ResNet50.hpp"

namespace splitstep {
namespace {

using namespace resnet50_model;

// torchvision's conv1x1 and conv3x3: no bias, padding 1 on the 3x3.
torch::nn::Conv2d conv1x1(std::int64_t in, std::int64_t out, std::int64_t stride = 1) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 1).stride(stride).bias(false));
}

torch::nn::Conv2d conv3x3(std::int64_t in, std::int64_t out, std::int64_t stride) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}

// torchvision's Bottleneck (ResNet V1.5: the stride on conv2). Its nn.ReLU(inplace=True) is
// relu_, and `out += identity` the in-place add.
class Bottleneck final : public torch::nn::Module {
 public:
  Bottleneck(std::int64_t in, std::int64_t mid, std::int64_t out, std::int64_t stride,
             bool shortcut)
      : conv1_(register_module("conv1", conv1x1(in, mid))),
        bn1_(register_module("bn1", torch::nn::BatchNorm2d(mid))),
        conv2_(register_module("conv2", conv3x3(mid, mid, stride))),
        bn2_(register_module("bn2", torch::nn::BatchNorm2d(mid))),
        conv3_(register_module("conv3", conv1x1(mid, out))),
        bn3_(register_module("bn3", torch::nn::BatchNorm2d(out))) {
    if (shortcut) {
      downsample_ = register_module(
          "downsample",
          torch::nn::Sequential(conv1x1(in, out, stride), torch::nn::BatchNorm2d(out)));
    }
  }
  at::Tensor forward(const at::Tensor& x) {
    at::Tensor identity = x;
    at::Tensor out = bn1_->forward(conv1_->forward(x));
    out.relu_();
    out = bn2_->forward(conv2_->forward(out));
    out.relu_();
    out = bn3_->forward(conv3_->forward(out));
    if (downsample_) identity = downsample_->forward(x);
    out += identity;
    out.relu_();
    return out;
  }

 private:
  torch::nn::Conv2d conv1_;
  torch::nn::BatchNorm2d bn1_;
  torch::nn::Conv2d conv2_;
  torch::nn::BatchNorm2d bn2_;
  torch::nn::Conv2d conv3_;
  torch::nn::BatchNorm2d bn3_;
  torch::nn::Sequential downsample_{nullptr};
};

// torchvision's ResNet(Bottleneck, [3, 4, 6, 3], width_per_group=width).
class ResNet50Net final : public torch::nn::Module {
 public:
  explicit ResNet50Net(std::int64_t width)
      : conv1_(register_module(
            "conv1",
            torch::nn::Conv2d(
                torch::nn::Conv2dOptions(3, kStemChannels, 7).stride(2).padding(3).bias(false)))),
        bn1_(register_module("bn1", torch::nn::BatchNorm2d(kStemChannels))) {
    std::int64_t in = kStemChannels;
    for (std::size_t layer = 0; layer < kBlocks.size(); ++layer) {
      const std::int64_t planes = kStemChannels << layer;
      // torchvision's int(planes * (base_width / 64.0)) * groups, exact for planes = 64 x 2^k.
      const std::int64_t mid = planes * width / 64;
      const std::int64_t out = planes * kExpansion;
      torch::nn::Sequential blocks;
      for (std::int64_t i = 0; i < kBlocks[layer]; ++i) {
        const std::int64_t stride = i == 0 && layer > 0 ? 2 : 1;
        blocks->push_back(
            std::make_shared<Bottleneck>(i == 0 ? in : out, mid, out, stride, i == 0));
      }
      in = out;
      layers_.push_back(register_module("layer" + std::to_string(layer + 1), blocks));
    }
    fc_ = register_module(
        "fc", torch::nn::Linear(static_cast<std::int64_t>(kFeatures), kClassifierClasses));
    // torchvision's initialisation, after every module drew its default: convolutions
    // Kaiming-normal for fan-out and ReLU, batch norms weight 1 and bias 0 (LibTorch's default
    // too), the classifier as nn.Linear draws it (LibTorch's Linear draws the same);
    // zero_init_residual=False.
    const c10::NoGradGuard no_grad;
    for (const auto& module : modules(/*include_self=*/false)) {
      if (auto* conv = module->as<torch::nn::Conv2d>()) {
        torch::nn::init::kaiming_normal_(conv->weight, 0, torch::kFanOut, torch::kReLU);
      }
    }
  }
  at::Tensor forward(const at::Tensor& input) {
    at::Tensor x = bn1_->forward(conv1_->forward(input));
    x.relu_();
    x = at::max_pool2d(x, {3, 3}, {2, 2}, {1, 1});
    for (auto& layer : layers_) x = layer->forward(x);
    // nn.AdaptiveAvgPool2d((1, 1)), then torch.flatten(x, 1).
    x = at::flatten(at::adaptive_avg_pool2d(x, {1, 1}), 1);
    return linear(fc_, x);
  }

 private:
  torch::nn::Conv2d conv1_;
  torch::nn::BatchNorm2d bn1_;
  std::vector<torch::nn::Sequential> layers_;
  torch::nn::Linear fc_{nullptr};
};

class ResNet50Workload final : public ModuleWorkload<ResNet50Net> {
 public:
  ResNet50Workload(const StepShape& shape, c10::Device device)
      : ModuleWorkload(std::make_shared<ResNet50Net>(shape[kWidth]), device, shape[kBatch]),
        image_(shape[kImage]),
        format_(shape[kChannelsLast] != 0 ? at::MemoryFormat::ChannelsLast
                                          : at::MemoryFormat::Contiguous) {
    // model.to(memory_format=torch.channels_last): every 4-D parameter (the convolutions'
    // weights) in place, the same Parameter with new data. Tensor::to, not contiguous(): a 1x1
    // kernel's NCHW strides already count as channels_last contiguous, and contiguous() would
    // keep them where torch's to() restrides them as channels_last, as the library's are.
    if (format_ != at::MemoryFormat::ChannelsLast) return;
    const c10::NoGradGuard no_grad;
    for (at::Tensor& p : net_->parameters()) {
      if (p.dim() == 4) p.set_data(p.to(p.options(), false, false, format_));
    }
  }
  // F.cross_entropy on the logits as they come: under autocast its log_softmax runs in fp32.
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const override {
    return torch::nn::functional::cross_entropy(output, target);
  }
  Batch hostBatch(std::int64_t rows, std::uint64_t seed) const override {
    at::Generator gen = generator(seed);
    at::Tensor input = at::randn({rows, 3, image_, image_}, gen).contiguous(format_);
    return {input, labels(rows, gen)};
  }

 private:
  std::int64_t image_;
  at::MemoryFormat format_;
};

const WorkloadRegistration kResNet50Workload(kResNet50Model, [](const StepShape& shape,
                                                                c10::Device device) {
  return std::unique_ptr<Workload>(std::make_unique<ResNet50Workload>(shape, device));
});

}  // namespace
}  // namespace splitstep
