#include "suites/MatmulSuite.hpp"

#include <ATen/Context.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/randn.h>
#include <fmt/format.h>

#include "cases/MatmulCase.hpp"
#include "suites/CaseRunner.hpp"
#include "suites/TorchScope.hpp"

namespace splitstep {
namespace {

c10::ScalarType scalarType(MatmulDtype dtype) {
  switch (dtype) {
    case MatmulDtype::Fp32:
    case MatmulDtype::Tf32:
      return c10::ScalarType::Float;
    case MatmulDtype::Fp16:
      return c10::ScalarType::Half;
    case MatmulDtype::Bf16:
      return c10::ScalarType::BFloat16;
  }
  throw std::invalid_argument("unknown dtype");
}

// Sets whether cuBLAS may use TF32 for fp32 products, and restores the previous setting.
class CublasTf32Scope {
 public:
  explicit CublasTf32Scope(bool allow)
      : previous_(
            at::globalContext().float32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL)) {
    at::globalContext().setFloat32Precision(
        at::Float32Backend::CUDA, at::Float32Op::MATMUL,
        allow ? at::Float32Precision::TF32 : at::Float32Precision::IEEE);
  }
  ~CublasTf32Scope() {
    at::globalContext().setFloat32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL,
                                            previous_);
  }
  CublasTf32Scope(const CublasTf32Scope&) = delete;
  CublasTf32Scope& operator=(const CublasTf32Scope&) = delete;

 private:
  at::Float32Precision previous_;
};

std::size_t elementBytes(MatmulDtype dtype) {
  return dtype == MatmulDtype::Fp16 || dtype == MatmulDtype::Bf16 ? 2 : 4;
}

// A, B and C, where the product runs.
Footprint footprint(const MatmulShape& shape, MatmulDtype dtype, bool on_gpu) {
  const auto elements =
      static_cast<std::uint64_t>(shape.m * shape.k + shape.k * shape.n + shape.m * shape.n);
  const std::uint64_t bytes = elements * elementBytes(dtype);
  return on_gpu ? Footprint{bytes, 0} : Footprint{0, bytes};
}

std::string caseName(MatmulDtype dtype, const MatmulShape& shape) {
  const std::string shape_name = toString(shape);
  return fmt::format("{} {}{}", toString(dtype),
                     shape_name.find('x') == std::string::npos ? "n=" : "", shape_name);
}

}  // namespace

std::optional<std::string> MatmulSuite::refusal(const SuiteContext& context) const {
  std::optional<std::string> first;
  for (MatmulDtype dtype : plan_.dtypes) {
    for (const MatmulShape& shape : plan_.shapes) {
      const auto why = context.budget.shortfall(footprint(shape, dtype, context.device.isCuda()));
      if (!why) return std::nullopt;
      if (!first) first = fmt::format("{}: {}", caseName(dtype, shape), *why);
    }
  }
  if (!first) return std::nullopt;
  return fmt::format("--matmul-sizes: no case fits on these ranks; {} (three matrices)", *first);
}

void MatmulSuite::run(const SuiteContext& context) {
  TorchScope torch_scope(context.device);
  CaseRunner runner(context, "matmul");
  for (MatmulDtype dtype : plan_.dtypes) {
    for (const MatmulShape& shape : plan_.shapes) {
      const std::string shape_name = toString(shape);
      MatmulCase fields{dtype, shape, {}};
      if (context.device.isCuda()) {
        // Read back what cuBLAS will use ("tf32" or "ieee"), not what was asked for.
        const CublasTf32Scope tf32(dtype == MatmulDtype::Tf32);
        fields.cuda_fp32_matmul = at::precision2str(
            at::globalContext().float32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL));
      }
      Sample& sample = runner.add(caseName(dtype, shape), "mm", fields.encode());
      // The seeds' FP32-vs-FP16 comparison: every dtype against fp32 at the same shape.
      sample.comparison = {shape_name, "fp32", dtype == MatmulDtype::Fp32};
      if (dtype == MatmulDtype::Tf32 && !context.device.isCuda()) {
        CaseRunner::skip(sample, "tf32 is a CUDA tensor-core mode; the CPU has none");
        continue;
      }
      if (const auto why =
              context.budget.shortfall(footprint(shape, dtype, context.device.isCuda()))) {
        CaseRunner::skip(sample, *why + " (three matrices)");
        continue;
      }
      CublasTf32Scope tf32(dtype == MatmulDtype::Tf32);
      // Fresh random operands: products of zeros run measurably faster on current GPUs.
      const auto options =
          at::TensorOptions().dtype(scalarType(dtype)).device(torch_scope.device());
      const at::Tensor a = at::randn({shape.m, shape.k}, options);
      const at::Tensor b = at::randn({shape.k, shape.n}, options);
      at::Tensor c = at::empty({shape.m, shape.n}, options);
      runner.measure(sample, [&] { at::mm_out(c, a, b); });
      const double flop = 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) *
                          static_cast<double>(shape.k);
      sample.rates.push_back({"TFLOP/s", flop, 1e12});
    }
  }
  runner.finish();
}

const SuiteRegistration kMatmulRegistration(kMatmulSuite.name, [](const SuiteInfo&,
                                                                  const RunPlan& plan) {
  return std::unique_ptr<Suite>(std::make_unique<MatmulSuite>(plan.matmul));
});

}  // namespace splitstep
