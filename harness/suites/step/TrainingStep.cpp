#include "suites/step/TrainingStep.hpp"

#include <ATen/ops/_amp_foreach_non_finite_check_and_unscale.h>
#include <ATen/ops/_amp_update_scale.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/full.h>
#include <ATen/ops/zeros.h>
#include <ATen/record_function.h>

#include <chrono>
#include <optional>

#include "suites/step/AutocastScope.hpp"
#include "suites/step/BusyTime.hpp"

namespace splitstep {
namespace {

std::optional<c10::ScalarType> autocastType(StepPrecision precision) {
  switch (precision) {
    case StepPrecision::Fp32:
      return std::nullopt;
    case StepPrecision::Bf16:
      return c10::ScalarType::BFloat16;
    case StepPrecision::Fp16:
      return c10::ScalarType::Half;
  }
  return std::nullopt;
}

}  // namespace

// torch.amp.GradScaler's dynamic loss scaling for fp16: the loss is multiplied by a scale so
// that small gradients survive fp16; gradients are divided by it before the step, a step whose
// gradients hold inf or NaN is skipped and halves the scale, and 2000 good steps double it.
class TrainingStep::LossScaler {
 public:
  explicit LossScaler(c10::Device device)
      : scale_(at::full({1}, 65536.0, at::TensorOptions().dtype(at::kFloat).device(device))),
        growth_tracker_(at::zeros({1}, at::TensorOptions().dtype(at::kInt).device(device))),
        found_inf_(at::zeros({1}, at::TensorOptions().dtype(at::kFloat).device(device))) {}

  at::Tensor scale(const at::Tensor& loss) const { return loss * scale_; }

  // Unscales the gradients in place; whether they were all finite. Reading the answer waits
  // for the device, as GradScaler.step does.
  bool unscale(const std::vector<at::Tensor>& grads) {
    found_inf_.zero_();
    at::_amp_foreach_non_finite_check_and_unscale_(
        grads, found_inf_, scale_.to(at::kDouble).reciprocal().to(at::kFloat));
    return found_inf_.item<float>() == 0;
  }

  void update() { at::_amp_update_scale_(scale_, growth_tracker_, found_inf_, 2.0, 0.5, 2000); }

 private:
  at::Tensor scale_;
  at::Tensor growth_tracker_;
  at::Tensor found_inf_;
};

TrainingStep::TrainingStep(Workload& workload, const StepRecipe& recipe, Device& device,
                           Batch host_batch)
    : workload_(workload),
      parameters_(workload.parameters()),
      recipe_(recipe),
      device_(device),
      host_(std::move(host_batch)) {
  const c10::Device target = parameters_.front().device();
  if (recipe_.input == InputSource::Pinned && device_.isCuda()) {
    host_ = {host_.input.pin_memory(), host_.target.pin_memory()};
  }
  // In the host batch's memory format (channels_last images stay channels_last).
  on_device_ = {at::empty_like(host_.input, host_.input.options().device(target)),
                at::empty_like(host_.target, host_.target.options().device(target))};
  if (recipe_.input == InputSource::Device) {
    on_device_.input.copy_(host_.input);
    on_device_.target.copy_(host_.target);
  }
  OptimizerSettings settings = optimizerSettings(recipe_.optimizer, recipe_.optimizer_impl,
                                                 recipe_.learning_rate, recipe_.momentum);
  settings.capturable = recipe_.capturable;
  optimizer_ = makeOptimizer(parameters_, settings);
  if (recipe_.precision == StepPrecision::Fp16) scaler_ = std::make_unique<LossScaler>(target);
  for (auto& timer : timers_) timer = device_.newTimer();
}

TrainingStep::~TrainingStep() = default;

void TrainingStep::hostWork(double seconds) const {
  // Busy, as decoding and augmenting a batch keep the host: the device waits.
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
  }
}

void TrainingStep::delayIf(DelayPhase phase) const {
  if (recipe_.delay > 0 && recipe_.delay_phase == phase) hostWork(recipe_.delay);
}

void TrainingStep::optimizerStep() {
  bool finite = true;
  if (scaler_) {
    std::vector<at::Tensor> grads;
    for (const at::Tensor& p : parameters_) {
      if (p.grad().defined()) grads.push_back(p.grad());
    }
    finite = scaler_->unscale(grads);
  }
  if (finite && !recipe_.skip_optimizer) optimizer_->step();
  if (scaler_) scaler_->update();
  dropGradients();
}

void TrainingStep::dropGradients() {
  // zero_grad(set_to_none=True). LibTorch's own detaches each gradient in place first, which a
  // gradient that is a view of a bucket does not allow.
  for (const at::Tensor& p : parameters_) p.mutable_grad().reset();
}

void TrainingStep::runForGraph(GradientSync* sync, bool overlap) {
  if (recipe_.input != InputSource::Device) {
    on_device_.input.copy_(host_.input, recipe_.non_blocking);
    on_device_.target.copy_(host_.target, recipe_.non_blocking);
  }
  if (sync != nullptr && overlap) sync->armHooks();
  loss(forward(on_device_.input), on_device_.target).backward();
  if (sync != nullptr) sync->finish(overlap);
  optimizer_->step();
}

at::Tensor TrainingStep::forward(const at::Tensor& input) {
  AutocastScope scope(deviceType(), autocastType(recipe_.precision));
  return workload_.forward(input);
}

at::Tensor TrainingStep::loss(const at::Tensor& output, const at::Tensor& target) {
  AutocastScope scope(deviceType(), autocastType(recipe_.precision));
  const at::Tensor loss = workload_.loss(output, target);
  return scaler_ ? scaler_->scale(loss) : loss;
}

c10::DeviceType TrainingStep::deviceType() const {
  return device_.isCuda() ? c10::DeviceType::CUDA : c10::DeviceType::CPU;
}

void TrainingStep::run(GradientSync* sync, bool overlap,
                       const std::function<void()>& before_optimizer) {
  auto timed = [this](Phase phase, const auto& work) {
    // Free unless a profiler listens (the name is made only then): it then places the phase's
    // launches (profileBusy).
    RECORD_USER_SCOPE(phaseScope(phase));
    const auto index = static_cast<std::size_t>(phase);
    timers_[index]->start();
    work();
    timers_[index]->stop();
    ran_[index] = true;
  };
  ran_.fill(false);
  timed(Phase::Data, [&] {
    delayIf(DelayPhase::Data);
    if (recipe_.host_work > 0) hostWork(recipe_.host_work);
    if (recipe_.input != InputSource::Device) {
      on_device_.input.copy_(host_.input, recipe_.non_blocking);
      on_device_.target.copy_(host_.target, recipe_.non_blocking);
    }
  });
  at::Tensor output;
  timed(Phase::Forward, [&] {
    delayIf(DelayPhase::Forward);
    output = forward(on_device_.input);
  });
  at::Tensor scaled_loss;
  timed(Phase::Loss, [&] { scaled_loss = loss(output, on_device_.target); });
  if (sync != nullptr && overlap) sync->armHooks();
  timed(Phase::Backward, [&] {
    delayIf(DelayPhase::Backward);
    if (sync != nullptr) sync->markBackwardStart();
    scaled_loss.backward();
    if (sync != nullptr) sync->markBackwardEnd();
  });
  output.reset();
  scaled_loss.reset();
  if (sync != nullptr) timed(Phase::Sync, [&] { sync->finish(overlap); });
  if (before_optimizer) before_optimizer();
  timed(Phase::Optimizer, [&] {
    delayIf(DelayPhase::Optimizer);
    optimizerStep();
  });
}

void TrainingStep::runAccumulated(const std::vector<Batch>& host_batches,
                                  const std::function<void()>& before_optimizer,
                                  const std::function<void(std::size_t)>& before_batch) {
  for (std::size_t i = 0; i < host_batches.size(); ++i) {
    const Batch& batch = host_batches[i];
    if (before_batch) before_batch(i);
    loss(forward(batch.input.to(on_device_.input.device())),
         batch.target.to(on_device_.target.device()))
        .backward();
  }
  for (const at::Tensor& p : parameters_) {
    p.mutable_grad().mul_(1.0 / static_cast<double>(host_batches.size()));
  }
  if (before_optimizer) before_optimizer();
  optimizerStep();
}

double TrainingStep::seconds(Phase phase) const {
  const auto index = static_cast<std::size_t>(phase);
  return ran_[index] ? timers_[index]->seconds() : 0;
}

std::optional<HostSpan> TrainingStep::span(Phase phase) const {
  const auto index = static_cast<std::size_t>(phase);
  return ran_[index] ? timers_[index]->hostSpan() : std::nullopt;
}

}  // namespace splitstep
