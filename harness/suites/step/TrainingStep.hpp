// One training step, phase by phase, each phase between two timers on the working stream:
// data (host -> device), forward, loss, backward, gradient sync, optimizer (with zero_grad).
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "common/HostClock.hpp"
#include "common/StepKeys.hpp"
#include "device/Device.hpp"
#include "models/Workload.hpp"
#include "options/StepPlan.hpp"
#include "suites/step/GradientSync.hpp"
#include "suites/step/Optimizer.hpp"

namespace splitstep {

// How the step trains: precision, optimizer and where its batch comes from; and, on a rank
// made late or faulty on purpose, how.
struct StepRecipe {
  StepPrecision precision = StepPrecision::Bf16;
  StepOptimizer optimizer = StepOptimizer::Sgd;
  OptimizerImpl optimizer_impl = OptimizerImpl::Foreach;
  double learning_rate = 0.01;
  double momentum = 0;
  InputSource input = InputSource::Pinned;
  bool non_blocking = true;
  double host_work = 0;  // seconds
  double delay = 0;      // seconds this rank is late at the start of `delay_phase`, every step
  DelayPhase delay_phase = DelayPhase::Data;
  bool skip_optimizer = false;  // the skipped-step sync fault (tests only)
  bool capturable = false;      // the optimizer's step counts on the device (a graphed step)
};

class TrainingStep {
 public:
  // `host_batch` is copied to the device every step (or once, for InputSource::Device).
  TrainingStep(Workload& workload, const StepRecipe& recipe, Device& device, Batch host_batch);
  ~TrainingStep();
  TrainingStep(const TrainingStep&) = delete;
  TrainingStep& operator=(const TrainingStep&) = delete;

  // One step. With `sync`, gradients are averaged over the ranks, during backward (`overlap`)
  // or after it; without, the sync phase is left out. `before_optimizer`, if given, runs when
  // the gradients are final (synchronised, not yet unscaled), outside every timed phase.
  void run(GradientSync* sync, bool overlap,
           const std::function<void()>& before_optimizer = nullptr);
  // One untimed step on several batches in one process, as gradient accumulation does: forward
  // and backward on each in turn, gradients summed and divided by their number, one optimizer
  // step. On the ranks' batches it computes what gradient sync should, without communicating.
  // `before_batch(i)` runs before batch i's forward.
  void runAccumulated(const std::vector<Batch>& host_batches,
                      const std::function<void()>& before_optimizer = nullptr,
                      const std::function<void(std::size_t)>& before_batch = nullptr);
  // One step as a CUDA graph captures it (GraphedStep): the batch's copy, forward, loss,
  // backward, the gradients' sync as run() does it (`sync`, with its marks left out:
  // GradientSync::Untimed) and the optimizer, without timers or host work. The gradients stay
  // in place for the replays to overwrite: dropGradients() before the first, as
  // zero_grad(set_to_none=True) comes before torch.cuda.graph's capture.
  void runForGraph(GradientSync* sync, bool overlap);
  void dropGradients();
  // After the device has finished the step: the seconds of `phase` (0 for one not run).
  double seconds(Phase phase) const;
  // After the device has finished the step: where `phase` lay on the host's clock (empty for a
  // phase not run, or where the device cannot place it: IntervalTimer::hostSpan).
  std::optional<HostSpan> span(Phase phase) const;

 private:
  class LossScaler;

  void hostWork(double seconds) const;
  void delayIf(DelayPhase phase) const;
  // Under autocast in a reduced precision; the loss is multiplied by the fp16 loss scale.
  at::Tensor forward(const at::Tensor& input);
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target);
  c10::DeviceType deviceType() const;
  void optimizerStep();

  Workload& workload_;
  std::vector<at::Tensor> parameters_;  // the workload's, gathered once rather than every step
  StepRecipe recipe_;
  Device& device_;
  Batch host_;
  Batch on_device_;
  std::unique_ptr<Optimizer> optimizer_;
  std::unique_ptr<LossScaler> scaler_;  // fp16 only
  std::array<std::unique_ptr<IntervalTimer>, kPhases.size()> timers_;
  std::array<bool, kPhases.size()> ran_{};
};

}  // namespace splitstep
