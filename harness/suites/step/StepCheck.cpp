#include "suites/step/StepCheck.hpp"

#include <ATen/ops/cat.h>
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>

namespace splitstep {
namespace {

// Relative error of a parameter's update that still counts as equal. fp32 leaves only the
// rounding of sums taken in another order; under autocast the products round to 11 (fp16) or
// 8 (bf16) significant bits, and the batch split changes which products are rounded.
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

// How many times one process's own reordering noise a synchronised update may differ by.
constexpr int kNoiseFactor = 4;

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

// One process stepping on the ranks' batches concatenated in `order`: its parameters after.
std::vector<at::Tensor> oneProcessStep(StepModel model, const StepPlan& plan,
                                       const StepRecipe& recipe, const SuiteContext& context,
                                       c10::Device device, std::int64_t rows,
                                       const std::vector<int>& order) {
  const auto workload = makeWorkload(model, plan, device, kModelSeed);
  std::vector<at::Tensor> inputs;
  std::vector<at::Tensor> targets;
  for (int r : order) {
    Batch shard = workload->hostBatch(rows, batchSeed(r));
    inputs.push_back(shard.input);
    targets.push_back(shard.target);
  }
  TrainingStep step(*workload, recipe, context.device, {at::cat(inputs), at::cat(targets)});
  step.run(nullptr, false);
  context.device.synchronize();
  return snapshot(workload->parameters());
}

Check identicalOnEveryRank(const std::vector<at::Tensor>& parameters, const SuiteContext& context,
                           Communicator& comm) {
  const at::Tensor mine = flatten(parameters);
  at::Tensor rank0 = mine.clone();
  comm.run(Collective::Broadcast, rank0.data_ptr(), rank0.data_ptr(),
           static_cast<std::size_t>(rank0.numel()), DataType::Float32, context.device.stream());
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
  if (!workload->shardsAverageExactly()) {
    result.notes.push_back(
        "no one-process reference: BatchNorm normalises each rank's shard on its own");
    return result;
  }
  std::vector<int> order(static_cast<std::size_t>(context.world_size));
  std::iota(order.begin(), order.end(), 0);
  const std::vector<at::Tensor> single =
      oneProcessStep(model, plan, quiet, context, device, rows, order);
  // The same batch in another order: one process's own rounding noise, which under autocast can
  // exceed the dtype's tolerance where a gradient is a sum that cancels almost to nothing.
  std::reverse(order.begin(), order.end());
  const std::vector<at::Tensor> reordered =
      context.world_size > 1 ? oneProcessStep(model, plan, quiet, context, device, rows, order)
                             : single;
  const std::vector<at::Tensor> synced = workload->parameters();
  const std::vector<std::string> names = workload->parameterNames();
  const double limit = tolerance(recipe.precision);
  double worst = -1;
  double worst_noise = 0;
  std::string worst_name;
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const double error = updateDistance(synced[i], single[i], before[i]);
    const double noise = updateDistance(reordered[i], single[i], before[i]);
    if (!(error <= std::max(limit, kNoiseFactor * noise))) ++wrong;
    if (error > worst) {
      worst = error;
      worst_noise = noise;
      worst_name = names[i];
    }
  }
  result.checks.push_back({"one-process reference", before.size(), wrong});
  result.notes.push_back(fmt::format(
      "{}: largest relative error of a parameter's update against one process stepping on all "
      "ranks' batches: {:.1e} ({}), where reordering that batch moves one process's own update "
      "by {:.1e}; allowed: {:.0e} or {}x the reordering's",
      overlap ? "overlap" : "sequential", worst, worst_name, worst_noise, limit, kNoiseFactor));
  return result;
}

}  // namespace splitstep
