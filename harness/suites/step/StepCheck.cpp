#include "suites/step/StepCheck.hpp"

#include <ATen/core/grad_mode.h>
#include <ATen/ops/cat.h>
#include <fmt/format.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "comm/GradientBuckets.hpp"
#include "suites/step/GradientSync.hpp"

namespace splitstep {
namespace {

at::Tensor flatten(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> flat;
  for (const at::Tensor& t : tensors) flat.push_back(t.detach().reshape({-1}));
  return at::cat(flat);
}

std::vector<at::Tensor> gradientsOf(const std::vector<at::Tensor>& parameters) {
  std::vector<at::Tensor> grads;
  for (const at::Tensor& p : parameters) grads.push_back(p.grad().detach().clone());
  return grads;
}

struct Deviation {
  double largest = 0;            // relative deviation of the tensor that deviates most
  std::string name;              // that tensor
  std::uint64_t beyond = 0;      // tensors beyond the tolerance
  std::uint64_t overflowed = 0;  // tensors whose reference holds inf or NaN (fp16 overflow)
};

// Per tensor, ||synced - reference|| against tolerance x the larger of the reference's norm and
// the norm a tensor of its size has at its bucket's root-mean-square: a gradient that is zero in
// exact arithmetic carries rounding noise at the scale of its neighbours, not at its own.
Deviation compare(const std::vector<at::Tensor>& synced, const std::vector<at::Tensor>& reference,
                  const std::vector<std::string>& names, const StepPlan& plan, double tolerance) {
  std::vector<std::size_t> bytes;
  for (const at::Tensor& g : reference) bytes.push_back(static_cast<std::size_t>(g.numel()) * 4);
  std::vector<double> scale(reference.size(), 0);
  for (const auto& members : assignBuckets(bytes, plan.first_bucket_bytes, plan.bucket_bytes)) {
    double squares = 0;
    double elements = 0;
    for (std::size_t i : members) {
      squares += std::pow(reference[i].norm().item<double>(), 2);
      elements += static_cast<double>(reference[i].numel());
    }
    const double rms = elements > 0 ? std::sqrt(squares / elements) : 0;
    for (std::size_t i : members) {
      scale[i] = std::max(reference[i].norm().item<double>(),
                          rms * std::sqrt(static_cast<double>(reference[i].numel())));
    }
  }
  Deviation d;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    if (!reference[i].isfinite().all().item<bool>()) {
      // The reference overflowed: the synchronised step must have overflowed in the same tensor.
      ++d.overflowed;
      if (synced[i].isfinite().all().item<bool>()) ++d.beyond;
      continue;
    }
    const double difference = synced[i].sub(reference[i]).norm().item<double>();
    const double relative = scale[i] > 0 ? difference / scale[i] : (difference > 0 ? INFINITY : 0);
    if (!(relative <= tolerance)) ++d.beyond;
    if (d.name.empty() || !(relative <= d.largest)) {
      d.largest = relative;
      d.name = names[i];
    }
  }
  return d;
}

Check identicalOnEveryRank(const std::vector<at::Tensor>& parameters, const SuiteContext& context,
                           Communicator& comm) {
  const at::Tensor mine = flatten(parameters);
  at::Tensor rank0 = mine.clone();
  comm.run(broadcast(), rank0.data_ptr(), rank0.data_ptr(), static_cast<std::size_t>(rank0.numel()),
           DataType::Float32, context.device.stream());
  context.device.synchronize();
  const auto wrong = mine.ne(rank0).sum().item<std::int64_t>();
  return {"ranks identical", static_cast<std::uint64_t>(mine.numel()),
          static_cast<std::uint64_t>(wrong)};
}

}  // namespace

double gradientTolerance(StepPrecision precision) {
  switch (precision) {
    case StepPrecision::Fp32:
      return 1e-4;
    case StepPrecision::Fp16:  // 11 significant bits
      return 5e-3;
    case StepPrecision::Bf16:  // 8 significant bits
      return 2e-2;
  }
  return 0;
}

SyncCheck::SyncCheck(const StepPlan& plan, const StepRecipe& recipe, const SuiteContext& context,
                     Communicator& comm, Workload& workload, Batch host_batch)
    : plan_(plan),
      quiet_(recipe),
      context_(context),
      comm_(comm),
      workload_(workload),
      host_batch_(std::move(host_batch)) {
  quiet_.host_work = 0;
  quiet_.delay = 0;
  quiet_.skip_optimizer = plan.fault == SyncFault::SkippedStep && context.rank == plan.fault_rank;
  // The timed modes left each rank with its own parameters (mode none trains on the rank's own
  // gradients, mode single on rank 0 only): every rank takes rank 0's.
  const std::vector<at::Tensor> parameters = workload_.parameters();
  broadcastParameters(parameters, comm_, context_.device);
  for (const at::Tensor& p : parameters) kept_.push_back(p.detach().clone());
}

// A model with dropout (gpt2) draws its masks from the default generators: seeded by the rank
// before its batch's forward, in the synchronised step and in the reference alike, they draw
// the same masks for the same batch, so that the two compute the same gradients.
void SyncCheck::seedDropout(int rank) { torch::manual_seed(batchSeed(rank)); }

void SyncCheck::restoreParameters() {
  at::NoGradGuard no_grad;
  const std::vector<at::Tensor> parameters = workload_.parameters();
  for (std::size_t i = 0; i < parameters.size(); ++i) parameters[i].copy_(kept_[i]);
}

// One process on all ranks' batches, accumulating the gradient of each, as gradient sync
// computes it: its gradients before its optimizer step.
std::vector<at::Tensor> SyncCheck::referenceGradients() {
  // The ranks' batches, as each rank built its own.
  std::vector<Batch> shards = {host_batch_};
  for (int r = 1; r < context_.world_size; ++r) {
    shards.push_back(workload_.hostBatch(workload_.batchSize(), batchSeed(r)));
  }
  std::vector<at::Tensor> inputs;
  std::vector<at::Tensor> targets;
  for (const Batch& shard : shards) {
    inputs.push_back(shard.input);
    targets.push_back(shard.target);
  }
  StepRecipe reference = quiet_;
  reference.skip_optimizer = false;
  restoreParameters();
  TrainingStep step(workload_, reference, context_.device, {at::cat(inputs), at::cat(targets)});
  std::vector<at::Tensor> grads;
  step.runAccumulated(
      shards, [&] { grads = gradientsOf(workload_.parameters()); },
      [](std::size_t rank) { seedDropout(static_cast<int>(rank)); });
  context_.device.synchronize();
  return grads;
}

StepCheckResult SyncCheck::run(bool overlap) {
  const std::string mode = overlap ? "overlap" : "sequential";
  if (context_.rank == 0 && reference_.empty()) reference_ = referenceGradients();
  restoreParameters();
  StepCheckResult result;
  std::vector<at::Tensor> synced;
  {
    TrainingStep step(workload_, quiet_, context_.device, host_batch_);
    GradientSync sync(workload_.parameters(), comm_, context_.device, plan_.first_bucket_bytes,
                      plan_.bucket_bytes, context_.world_size, plan_.fault,
                      context_.rank == plan_.fault_rank);
    seedDropout(context_.rank);
    step.run(&sync, overlap, [&] { synced = gradientsOf(workload_.parameters()); });
    context_.device.synchronize();
  }
  result.checks.push_back(identicalOnEveryRank(workload_.parameters(), context_, comm_));
  if (context_.rank != 0) return result;
  const double tolerance = gradientTolerance(quiet_.precision);
  const Deviation d = compare(synced, reference_, workload_.parameterNames(), plan_, tolerance);
  result.checks.push_back({"gradients vs one process", synced.size(), d.beyond});
  result.notes.push_back(fmt::format(
      "{}: largest norm-wise deviation of a synchronised gradient from one process accumulating "
      "every rank's batch: {:.1e} ({}; tolerance {:.0e})",
      mode, d.largest, d.name, tolerance));
  if (d.overflowed > 0) {
    result.notes.push_back(fmt::format(
        "{}: {} gradient tensor(s) overflowed in the reference step (fp16 loss scaling); those "
        "were checked to overflow in the synchronised step too",
        mode, d.overflowed));
  }
  return result;
}

}  // namespace splitstep
