#include "suites/MatmulSuite.hpp"

#include <ATen/Context.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/randn.h>

#include "cases/MatmulCase.hpp"
#include "cases/Rates.hpp"
#include "suites/CaseRunner.hpp"
#include "suites/MatmulSpace.hpp"
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

}  // namespace

MatmulSpace MatmulSuite::space(const SuiteContext& context) const {
  return MatmulSpace(plan_, context.device.isCuda(), context.budget);
}

std::optional<std::string> MatmulSuite::refusal(const SuiteContext& context) const {
  return space(context).refusal();
}

std::size_t MatmulSuite::caseCount(const SuiteContext& context) const {
  return space(context).size();
}

void MatmulSuite::run(const SuiteContext& context) {
  const MatmulSpace cases = space(context);
  TorchScope torch_scope(context.device);
  CaseRunner runner(context, "matmul");
  for (const MatmulCase& c : cases.cases()) {
    const MatmulDtype dtype = c.dtype;
    const MatmulShape& shape = c.shape;
    MatmulCase fields = c;
    if (context.device.isCuda()) {
      // Read back what cuBLAS will use ("tf32" or "ieee"), not what was asked for.
      const CublasTf32Scope tf32(dtype == MatmulDtype::Tf32);
      fields.cuda_fp32_matmul = at::precision2str(
          at::globalContext().float32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL));
    }
    Sample& sample = runner.add(MatmulSpace::name(c), "mm", fields.encode());
    // The seeds' FP32-vs-FP16 comparison: every dtype against fp32 at the same shape.
    sample.comparison = {toString(shape), "fp32", dtype == MatmulDtype::Fp32};
    if (const auto skip = cases.whyNot(c)) {
      CaseRunner::skip(sample, skip->reason);
      continue;
    }
    CublasTf32Scope tf32(dtype == MatmulDtype::Tf32);
    // Fresh random operands: products of zeros run measurably faster on current GPUs.
    const auto options = at::TensorOptions().dtype(scalarType(dtype)).device(torch_scope.device());
    const at::Tensor a = at::randn({shape.m, shape.k}, options);
    const at::Tensor b = at::randn({shape.k, shape.n}, options);
    at::Tensor c_out = at::empty({shape.m, shape.n}, options);
    runner.measure(sample, [&] { at::mm_out(c_out, a, b); });
    const double flop = 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) *
                        static_cast<double>(shape.k);
    sample.rates.push_back(rates::of(rates::kTflops, flop));
  }
  runner.finish();
}

const SuiteRegistration kMatmulRegistration(kMatmulSuite.name, [](const SuiteInfo&,
                                                                  const RunPlan& plan) {
  return std::unique_ptr<Suite>(std::make_unique<MatmulSuite>(plan.matmul));
});

}  // namespace splitstep
