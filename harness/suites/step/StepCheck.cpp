#include "suites/step/StepCheck.hpp"

#include <ATen/ops/cat.h>
#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace splitstep {
namespace {

// Relative error of a parameter's update that still counts as equal. The reference computes each
// rank's gradient with the same kernels, so what remains is the order of the average's sum and
// kernels that accumulate with atomics (attention, convolution backward), which round at the
// dtype's precision: 11 significant bits in fp16, 8 in bf16.
double tolerance(StepPrecision precision) {
  switch (precision) {
    case StepPrecision::Fp32:
      return 1e-4;
    case StepPrecision::Fp16:
      return 1e-2;
    case StepPrecision::Bf16:
      return 5e-2;
  }
  return 0;
}

// ||a - b|| / ||b - before||: how far update a lies from update b, relative to b.
double updateDistance(const at::Tensor& a, const at::Tensor& b, const at::Tensor& before) {
  const double scale = b.detach().sub(before).norm().item<double>();
  const double size = a.detach().sub(b.detach()).norm().item<double>();
  if (scale > 0) return size / scale;
  return size > 0 ? std::numeric_limits<double>::infinity() : 0;
}

at::Tensor flatten(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> flat;
  for (const at::Tensor& t : tensors) flat.push_back(t.detach().reshape({-1}));
  return at::cat(flat);
}

std::vector<at::Tensor> snapshot(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> copies;
  for (const at::Tensor& t : tensors) copies.push_back(t.detach().clone());
  return copies;
}

// One process on all ranks' batches, accumulating the gradient of each (what gradient sync
// computes) or in one pass over them concatenated: its parameters after the step.
std::vector<at::Tensor> oneProcessStep(StepModel model, const StepPlan& plan,
                                       const StepRecipe& recipe, const SuiteContext& context,
                                       c10::Device device, const std::vector<Batch>& shards,
                                       bool accumulate) {
  const auto workload = makeWorkload(model, plan, device, kModelSeed);
  std::vector<at::Tensor> inputs;
  std::vector<at::Tensor> targets;
  for (const Batch& shard : shards) {
    inputs.push_back(shard.input);
    targets.push_back(shard.target);
  }
  TrainingStep step(*workload, recipe, context.device, {at::cat(inputs), at::cat(targets)});
  if (accumulate) {
    step.runAccumulated(shards);
  } else {
    step.run(nullptr, false);
  }
  context.device.synchronize();
  return snapshot(workload->parameters());
}

struct Deviation {
  double largest = 0;        // relative error of the parameter whose update deviates most
  std::string name;          // that parameter
  std::uint64_t beyond = 0;  // parameters beyond the tolerance
  bool moved = false;        // whether the reference step changed any parameter at all
};

Deviation largestDeviation(const std::vector<at::Tensor>& synced,
                           const std::vector<at::Tensor>& reference,
                           const std::vector<at::Tensor>& before,
                           const std::vector<std::string>& names, double tolerance) {
  Deviation d;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const double error = updateDistance(synced[i], reference[i], before[i]);
    if (!(error <= tolerance)) ++d.beyond;
    d.moved = d.moved || reference[i].detach().ne(before[i]).any().item<bool>();
    if (i == 0 || error > d.largest) {
      d.largest = error;
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

StepCheckResult checkSynchronisedStep(StepModel model, const StepPlan& plan,
                                      const StepRecipe& recipe, bool overlap,
                                      const SuiteContext& context, Communicator& comm,
                                      c10::Device device) {
  const std::string mode = overlap ? "overlap" : "sequential";
  StepRecipe quiet = recipe;
  quiet.host_work = 0;
  StepCheckResult result;
  const auto workload = makeWorkload(model, plan, device, kModelSeed);
  const std::int64_t rows = workload->batchSize();
  const std::vector<at::Tensor> before = snapshot(workload->parameters());
  {
    TrainingStep step(*workload, quiet, context.device,
                      workload->hostBatch(rows, batchSeed(context.rank)));
    GradientSync sync(workload->parameters(), comm, context.device, plan.first_bucket_bytes,
                      plan.bucket_bytes, context.world_size);
    step.run(&sync, overlap);
    context.device.synchronize();
  }
  result.checks.push_back(identicalOnEveryRank(workload->parameters(), context, comm));
  if (context.rank != 0) return result;
  const std::vector<at::Tensor> synced = workload->parameters();
  const std::vector<std::string> names = workload->parameterNames();
  const double limit = tolerance(recipe.precision);
  // The ranks' batches, built once for both one-process steps.
  std::vector<Batch> shards;
  for (int r = 0; r < context.world_size; ++r) {
    shards.push_back(workload->hostBatch(rows, batchSeed(r)));
  }
  const Deviation accumulated =
      largestDeviation(synced, oneProcessStep(model, plan, quiet, context, device, shards, true),
                       before, names, limit);
  // A step that changed nothing (fp16 skips a step whose gradients overflowed) compares
  // nothing: that fails the check rather than passing it.
  result.checks.push_back({"one-process reference", before.size(),
                           accumulated.moved ? accumulated.beyond : before.size()});
  if (!accumulated.moved) {
    result.notes.push_back(mode +
                           ": the one-process step changed no parameter (an fp16 step whose "
                           "gradients overflowed is skipped), so nothing could be compared");
  }
  result.notes.push_back(fmt::format(
      "{}: largest relative error of a parameter's update against one process accumulating the "
      "gradients of all ranks' batches: {:.1e} ({}; tolerance {:.0e})",
      mode, accumulated.largest, accumulated.name, limit));
  if (!workload->shardsAverageExactly()) return result;
  // Not a check: in one pass, the whole batch's gradient is rounded once, where each rank
  // rounds its own before the average (in bf16 or fp16 this alone can move an update).
  const Deviation whole =
      largestDeviation(synced, oneProcessStep(model, plan, quiet, context, device, shards, false),
                       before, names, limit);
  result.notes.push_back(
      fmt::format("{}: against one process stepping on all ranks' batches in one pass: {:.1e} ({})",
                  mode, whole.largest, whole.name));
  return result;
}

}  // namespace splitstep
