// A training step as one CUDA graph, as PyTorch's whole-network capture makes it
// (torch.cuda.graph, capturable optimizers): after warm-up steps, one step is captured on the
// working stream, and its replays run the step with no launch from the host inside it, so that
// a replay's time is the GPU's. The eager step beside it then shows what the launches cost.
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <optional>
#include <string>

#include "device/Device.hpp"
#include "measure/Sample.hpp"
#include "models/Workload.hpp"
#include "options/StepPlan.hpp"
#include "suites/step/TrainingStep.hpp"

namespace at::cuda {
struct CUDAGraph;
}  // namespace at::cuda

namespace splitstep {

// Why a step trained by `recipe` is not graphed, in one line (a skipped case's reason); nullopt
// where it is, in every mode. What a graph cannot hold: work or a wait on the host inside the
// step, a copy from pageable memory, state the host keeps per step.
std::optional<std::string> whyNotGraphed(const StepRecipe& recipe);

// `recipe` as its graphed step trains: AdamW's step counts on the device (capturable=True).
StepRecipe graphedRecipe(StepRecipe recipe);

class GraphedStep {
 public:
  // Eager steps before the capture, as PyTorch's recipe warms up: lazy initialisation (cuBLAS
  // handles, the autograd engine's threads, momentum buffers) happens outside the graph.
  static constexpr int kWarmupSteps = 3;

  // Runs kWarmupSteps of `step` (of a graphedRecipe), then captures one step, its gradients
  // synchronised by `sync` (nullptr: mode none or single) during backward (`overlap`) or after
  // it: bucket packing and the collectives on the communication stream join the graph, as NCCL
  // calls can be captured. The model runs its forward as captured (CapturedForward). Throws
  // std::runtime_error, naming why in one line, where the capture fails (a host sync inside the
  // model); the working stream is usable again then.
  GraphedStep(TrainingStep& step, GradientSync* sync, bool overlap);
  ~GraphedStep();
  GraphedStep(const GraphedStep&) = delete;
  GraphedStep& operator=(const GraphedStep&) = delete;

  // Queues one step on the working stream.
  void replay();

 private:
  std::unique_ptr<at::cuda::CUDAGraph> graph_;
};

// The graphed step against the same steps run eagerly, on `workload` from its present
// parameters, each with a fresh optimizer of graphedRecipe(recipe), synchronised alike by `sync`
// (nullptr: none) and with the captured forward: kWarmupSteps and two more steps, the graphed
// ones replays. Per tensor, the gradients of the last step and the
// parameters after it must agree norm-wise within `tolerance`, or within a few times what a
// second eager run differs from the first where nondeterministic kernels make that more. The
// workload's parameters are put back afterwards.
struct GraphCheckResult {
  std::vector<Check> checks;  // "graphed gradients vs eager", "graphed parameters vs eager"
  std::string note;           // the largest deviations seen, and where
};
GraphCheckResult checkGraphed(Workload& workload, const StepRecipe& recipe, Device& device,
                              const Batch& host_batch, double tolerance, GradientSync* sync,
                              bool overlap);

}  // namespace splitstep
