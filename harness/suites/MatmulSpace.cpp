#include "suites/MatmulSpace.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace splitstep {
namespace {

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

}  // namespace

MatmulSpace::MatmulSpace(const MatmulPlan& plan, bool on_gpu, const MemoryBudget& budget)
    : on_gpu_(on_gpu), budget_(budget) {
  for (MatmulDtype dtype : plan.dtypes) {
    for (const MatmulShape& shape : plan.shapes) cases_.push_back({dtype, shape, {}});
  }
}

std::optional<Skip> MatmulSpace::whyNot(const MatmulCase& c) const {
  if (c.dtype == MatmulDtype::Tf32 && !on_gpu_) {
    return Skip{"tf32 is a CUDA tensor-core mode; the CPU has none"};
  }
  if (const auto why = budget_.shortfall(footprint(c.shape, c.dtype, on_gpu_))) {
    return Skip{*why + " (three matrices)", true};
  }
  return std::nullopt;
}

std::optional<std::string> MatmulSpace::refusal() const {
  const auto blocked = noneWithinLimits(cases_, [this](const MatmulCase& c) { return whyNot(c); });
  if (!blocked) return std::nullopt;
  return fmt::format("--matmul-sizes: no case fits on these ranks; {}: {}", name(*blocked->first),
                     blocked->reason);
}

std::string MatmulSpace::name(const MatmulCase& c) {
  const std::string shape_name = toString(c.shape);
  return fmt::format("{} {}{}", toString(c.dtype),
                     shape_name.find('x') == std::string::npos ? "n=" : "", shape_name);
}

}  // namespace splitstep
