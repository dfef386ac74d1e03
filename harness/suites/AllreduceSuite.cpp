#include "suites/AllreduceSuite.hpp"

#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <fmt/format.h>

#include "comm/BusBandwidth.hpp"
#include "common/Units.hpp"
#include "device/CudaCheck.hpp"
#include "measure/Measurer.hpp"
#include "pattern.cuh"
#include "suites/TorchScope.hpp"

namespace splitstep {
namespace {

void fill(const SuiteContext& context, float* data, std::size_t count) {
  if (context.device.isCuda()) {
    SPLITSTEP_CUDA_CHECK(kernels::fillPattern(data, count, context.rank, context.device.stream()));
    return;
  }
  for (std::size_t i = 0; i < count; ++i) data[i] = kernels::patternValue(i, context.rank);
}

std::uint64_t countWrong(const SuiteContext& context, const at::Tensor& result, std::size_t count) {
  const float* data = result.data_ptr<float>();
  if (context.device.isCuda()) {
    at::Tensor wrong = at::zeros({1}, result.options().dtype(c10::ScalarType::Long));
    SPLITSTEP_CUDA_CHECK(kernels::countSumMismatches(
        data, count, context.world_size,
        reinterpret_cast<unsigned long long*>(wrong.data_ptr<std::int64_t>()),
        context.device.stream()));
    return static_cast<std::uint64_t>(wrong.item<std::int64_t>());
  }
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i) {
    wrong += data[i] != kernels::patternSum(i, context.world_size) ? 1 : 0;
  }
  return wrong;
}

}  // namespace

std::vector<Sample> AllreduceSuite::run(const SuiteContext& context) {
  TorchScope torch_scope(context.device);
  Measurer measurer(context.device, context.agreement, context.measure);
  const std::optional<double> bus_factor =
      busBandwidthFactor(Collective::AllReduce, context.world_size);
  std::vector<Sample> samples;
  for (std::uint64_t bytes : plan_.bytes) {
    const std::size_t count = bytes / sizeof(float);
    const auto options =
        at::TensorOptions().dtype(c10::ScalarType::Float).device(torch_scope.device());
    const at::Tensor send = at::empty({static_cast<std::int64_t>(count)}, options);
    at::Tensor recv = at::empty({static_cast<std::int64_t>(count)}, options);
    fill(context, send.data_ptr<float>(), count);

    Sample& sample = samples.emplace_back();
    sample.suite = name();
    sample.case_name = formatBytes(bytes);
    sample.series = "allreduce";
    sample.params = {{"bytes", std::to_string(bytes)},
                     {"count", std::to_string(count)},
                     {"dtype", "fp32"},
                     {"op", "sum"},
                     {"in_place", "false"},
                     {"backend", context.comm.backend()}};
    const void* in = send.data_ptr();
    void* out = recv.data_ptr();
    sample.measurement =
        measurer.measure([&] { context.comm.allreduceSum(in, out, count, DataType::Float32); });
    // Every timed call writes the same sum into `recv`; the last one is checked, outside the
    // timed region.
    sample.checks.push_back({"sum", count, countWrong(context, recv, count)});
    sample.rates.push_back({"algbw GB/s", static_cast<double>(bytes), 1e9});
    if (bus_factor) {
      sample.rates.push_back({"busbw GB/s", static_cast<double>(bytes) * *bus_factor, 1e9});
    } else {
      sample.notes.push_back("busbw is not defined for a single rank");
    }
  }
  return samples;
}

}  // namespace splitstep
