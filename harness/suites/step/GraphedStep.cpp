#include "suites/step/GraphedStep.hpp"

#include <ATen/core/grad_mode.h>
#include <ATen/cuda/CUDAGraph.h>
#include <ATen/ops/zeros.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace splitstep {
namespace {

// The first line of an exception's text: LibTorch's carry a C++ stack trace below it.
std::string firstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

std::vector<at::Tensor> cloned(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> copies;
  for (const at::Tensor& t : tensors) copies.push_back(t.detach().clone());
  return copies;
}

std::vector<at::Tensor> gradientsOf(const std::vector<at::Tensor>& parameters) {
  std::vector<at::Tensor> grads;
  for (const at::Tensor& p : parameters) grads.push_back(p.grad().detach().clone());
  return grads;
}

void putBack(const std::vector<at::Tensor>& parameters, const std::vector<at::Tensor>& kept) {
  at::NoGradGuard no_grad;
  for (std::size_t i = 0; i < parameters.size(); ++i) parameters[i].copy_(kept[i]);
}

struct Deviation {
  std::uint64_t beyond = 0;  // tensors beyond the tolerance
  double largest = 0;
  std::string name;
};

// Per tensor, ||other - eager|| relative to the larger of the eager tensor's norm and the norm
// a tensor of its size has at the model's root-mean-square: a tensor near zero carries rounding
// noise at the scale of the others, not at its own.
std::vector<double> relativeDeviations(const std::vector<at::Tensor>& other,
                                       const std::vector<at::Tensor>& eager) {
  double squares = 0;
  double elements = 0;
  for (const at::Tensor& t : eager) {
    squares += std::pow(t.norm().item<double>(), 2);
    elements += static_cast<double>(t.numel());
  }
  const double rms = elements > 0 ? std::sqrt(squares / elements) : 0;
  std::vector<double> relative;
  for (std::size_t i = 0; i < eager.size(); ++i) {
    const double scale = std::max(eager[i].norm().item<double>(),
                                  rms * std::sqrt(static_cast<double>(eager[i].numel())));
    const double difference = other[i].sub(eager[i]).norm().item<double>();
    relative.push_back(scale > 0 ? difference / scale : (difference > 0 ? INFINITY : 0));
  }
  return relative;
}

// Nondeterministic kernels (atomic accumulation in a backward; which one GPT-2 meets is not
// pinned down) make two eager runs of the same steps differ, and AdamW carries a difference into
// the next steps' parameters: on an H200, GPT-2 at its preset differs from itself by up to 1.5
// in ln_f.bias's gradient after 5 AdamW steps (results/2026-12-04-h200-host-three-figures). So
// each tensor is held to the tolerance, or to kSelfMargin times what the eager steps differ from
// themselves where that is more: a graph that replays the wrong memory or a stale input differs
// by far more than that.
constexpr double kSelfMargin = 3;

// Graphed against eager, per tensor: beyond max(tolerance, kSelfMargin x eager's own deviation).
Deviation compare(const std::vector<double>& graphed, const std::vector<double>& self,
                  const std::vector<std::string>& names, double tolerance) {
  Deviation d;
  for (std::size_t i = 0; i < graphed.size(); ++i) {
    if (!(graphed[i] <= std::max(tolerance, kSelfMargin * self[i]))) ++d.beyond;
    if (d.name.empty() || !(graphed[i] <= d.largest)) {
      d.largest = graphed[i];
      d.name = names[i];
    }
  }
  return d;
}

double largest(const std::vector<double>& values) {
  return values.empty() ? 0 : std::ranges::max(values);
}

template <typename T>
std::vector<T> picked(const std::vector<T>& all, const std::vector<bool>& dropped) {
  std::vector<T> kept;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!dropped[i]) kept.push_back(all[i]);
  }
  return kept;
}

constexpr int kCheckedReplays = 2;

// Per tensor, whether its gradient's norm is below `tolerance` x the norm a tensor of its size
// has at the model's root-mean-square gradient.
std::vector<bool> roundingNoise(const std::vector<at::Tensor>& grads, double tolerance) {
  double squares = 0;
  double elements = 0;
  std::vector<double> norms;
  for (const at::Tensor& g : grads) {
    norms.push_back(g.norm().item<double>());
    squares += norms.back() * norms.back();
    elements += static_cast<double>(g.numel());
  }
  const double rms = elements > 0 ? std::sqrt(squares / elements) : 0;
  std::vector<bool> noise;
  for (std::size_t i = 0; i < grads.size(); ++i) {
    noise.push_back(norms[i] < tolerance * rms * std::sqrt(static_cast<double>(grads[i].numel())));
  }
  return noise;
}

// The seed the graph check's eager and graphed steps both start from, so that dropout draws the
// same masks in both: a replay draws from the generator's offset at its launch, as the eager
// step in its place would.
constexpr std::uint64_t kCheckSeed = 7;

// torch.cuda.set_sync_debug_mode("error") while it lives: a synchronising CUDA call throws.
class SyncsRefused {
 public:
  SyncsRefused() : was_(c10::cuda::warning_state().get_sync_debug_mode()) {
    c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_ERROR);
  }
  ~SyncsRefused() { c10::cuda::warning_state().set_sync_debug_mode(was_); }
  SyncsRefused(const SyncsRefused&) = delete;
  SyncsRefused& operator=(const SyncsRefused&) = delete;

 private:
  c10::cuda::SyncDebugMode was_;
};

// A capture that fails inside LibTorch's CUDAGraph::capture_end leaves the default CUDA
// generator in capture mode, and every later random op then fails ("Offset increment outside
// graph capture"). A capture that succeeds takes it out again: one of a single small op.
void releaseTheGenerator() {
  try {
    at::cuda::CUDAGraph graph;
    graph.capture_begin();
    at::zeros({1}, at::TensorOptions().device(at::kCUDA));
    graph.capture_end();
  } catch (const std::exception&) {
    // Nothing more can be done here; the case that failed is skipped with its own reason.
  }
  cudaGetLastError();
}

}  // namespace

std::optional<std::string> whyNotGraphed(const StepRecipe& recipe) {
  if (recipe.precision == StepPrecision::Fp16) {
    return std::string(
        "fp16's loss scaler reads on the host whether the gradients overflowed, "
        "every step (GradScaler.step); bf16 and fp32 are graphed");
  }
  if (recipe.input == InputSource::Pageable) {
    return std::string(
        "a copy from pageable memory waits for the host and cannot be captured; "
        "--step-input pinned or device can");
  }
  if (recipe.host_work > 0 || recipe.delay > 0) {
    return std::string(
        "host work in the step (--step-host-work, --delay) is what a graph leaves "
        "out");
  }
  if (recipe.optimizer == StepOptimizer::AdamW && recipe.optimizer_impl == OptimizerImpl::Loop) {
    return std::string(
        "AdamW's loop keeps its step counts on the host; foreach and fused keep them "
        "on the device (capturable=True)");
  }
  return std::nullopt;
}

StepRecipe graphedRecipe(StepRecipe recipe) {
  recipe.capturable = true;
  return recipe;
}

GraphedStep::GraphedStep(TrainingStep& step, GradientSync* sync, bool overlap)
    : graph_(std::make_unique<at::cuda::CUDAGraph>()) {
  const CapturedForward captured;
  const GradientSync::Untimed untimed(sync);
  for (int i = 0; i + 1 < kWarmupSteps; ++i) {
    step.dropGradients();
    step.runForGraph(sync, overlap);
  }
  // The last warm-up step under torch.cuda.set_sync_debug_mode("error"): a host sync inside the
  // step (.item(), a data-dependent `if`) is named before a capture it would invalidate.
  step.dropGradients();
  {
    SyncsRefused refused;
    try {
      step.runForGraph(sync, overlap);
    } catch (const c10::Error& e) {
      throw std::runtime_error("a host sync inside the step, which a graph cannot hold (" +
                               firstLine(e.what()) + ")");
    }
  }
  step.dropGradients();
  // The capture allocates from the graph's own memory pool, whose blocks (activations, the
  // gradients) keep their addresses for every replay. The blocks the eager steps left cached
  // cannot be handed back to the device during a capture, so they go first, as torch.cuda.graph
  // does on entry (synchronize, empty_cache): else a model whose step fills most of the GPU
  // (Llama at its preset) runs out of memory in the capture.
  c10::cuda::device_synchronize();
  c10::cuda::CUDACachingAllocator::emptyCache();
  graph_->capture_begin();
  try {
    step.runForGraph(sync, overlap);
  } catch (const std::exception& e) {
    const std::string why = firstLine(e.what());
    try {
      graph_->capture_end();
    } catch (const std::exception&) {
      // The capture was invalidated by what failed inside it: ending it is all that is left.
    }
    cudaGetLastError();  // the failed capture's error is reported here, not by the next call
    releaseTheGenerator();
    throw std::runtime_error("CUDA graph capture failed: " + why);
  }
  try {
    graph_->capture_end();
  } catch (const std::exception& e) {
    cudaGetLastError();
    releaseTheGenerator();
    throw std::runtime_error("CUDA graph capture failed: " + firstLine(e.what()));
  }
}

GraphedStep::~GraphedStep() = default;

void GraphedStep::replay() { graph_->replay(); }

GraphCheckResult checkGraphed(Workload& workload, const StepRecipe& recipe, Device& device,
                              const Batch& host_batch, double tolerance, GradientSync* sync,
                              bool overlap) {
  const CapturedForward captured;
  const GradientSync::Untimed untimed(sync);
  const std::vector<at::Tensor> parameters = workload.parameters();
  const std::vector<at::Tensor> kept = cloned(parameters);
  const StepRecipe graphed_recipe = graphedRecipe(recipe);
  // The same eager steps, each run from the same parameters, seed and fresh optimizer state:
  // their gradients after the last step and the parameters after it.
  const auto eagerRun = [&] {
    torch::manual_seed(kCheckSeed);
    std::pair<std::vector<at::Tensor>, std::vector<at::Tensor>> after;
    {
      TrainingStep eager(workload, graphed_recipe, device, host_batch);
      for (int i = 0; i < GraphedStep::kWarmupSteps + kCheckedReplays; ++i) {
        eager.dropGradients();
        eager.runForGraph(sync, overlap);
      }
      after = {gradientsOf(parameters), cloned(parameters)};
      eager.dropGradients();
    }
    putBack(parameters, kept);
    return after;
  };
  const auto [eager_grads, eager_parameters] = eagerRun();
  const auto [again_grads, again_parameters] = eagerRun();
  std::vector<at::Tensor> graphed_grads;
  std::vector<at::Tensor> graphed_parameters;
  torch::manual_seed(kCheckSeed);
  {
    TrainingStep step(workload, graphed_recipe, device, host_batch);
    GraphedStep graph(step, sync, overlap);
    for (int i = 0; i < kCheckedReplays; ++i) graph.replay();
    device.synchronize();
    graphed_grads = gradientsOf(parameters);
    graphed_parameters = cloned(parameters);
    step.dropGradients();
  }
  putBack(parameters, kept);
  const std::vector<std::string> names = workload.parameterNames();
  const std::vector<double> self_grads = relativeDeviations(again_grads, eager_grads);
  const Deviation grads =
      compare(relativeDeviations(graphed_grads, eager_grads), self_grads, names, tolerance);
  // A gradient that is zero in exact arithmetic (a key bias in attention: softmax ignores a
  // constant added to a row) is rounding noise, which AdamW turns into full-size steps of
  // either sign: its parameter says nothing about the graph. Such tensors, whose gradient is
  // below the tolerance of the model's scale, are held by their gradients alone.
  const std::vector<bool> noise = roundingNoise(eager_grads, tolerance);
  const std::vector<at::Tensor> eager_live = picked(eager_parameters, noise);
  const std::vector<double> self_parameters =
      relativeDeviations(picked(again_parameters, noise), eager_live);
  const Deviation params =
      compare(relativeDeviations(picked(graphed_parameters, noise), eager_live), self_parameters,
              picked(names, noise), tolerance);
  GraphCheckResult result;
  result.checks = {{"graphed gradients vs eager", graphed_grads.size(), grads.beyond},
                   {"graphed parameters vs eager", eager_live.size(), params.beyond}};
  result.note = fmt::format(
      "graphed against eager after {} steps: largest norm-wise deviation of a gradient {:.1e} "
      "({}), of a parameter {:.1e} ({}); eager against itself: {:.1e}, {:.1e} (tolerance the "
      "larger of {:.0e} and {:g}x eager's own, per tensor; {} tensor(s) whose gradient is "
      "rounding noise held by their gradients alone)",
      GraphedStep::kWarmupSteps + kCheckedReplays, grads.largest, grads.name, params.largest,
      params.name, largest(self_grads), largest(self_parameters), tolerance, kSelfMargin,
      names.size() - eager_live.size());
  return result;
}

}  // namespace splitstep
