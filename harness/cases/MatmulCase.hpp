// The case schema of the matmul suite: one GEMM of a dtype and shape.
#pragma once

#include <optional>
#include <string>

#include "cases/CaseFamily.hpp"
#include "options/MatmulPlan.hpp"

namespace splitstep {

struct MatmulCase {
  MatmulDtype dtype = MatmulDtype::Fp32;
  MatmulShape shape;
  // What cuBLAS used for fp32 ("tf32" or "ieee"), read back on a GPU; empty on the CPU.
  std::string cuda_fp32_matmul;

  bool operator==(const MatmulCase&) const = default;

  CaseFields encode() const;
  static std::optional<MatmulCase> decode(const CaseFields& fields);
  static const CaseFamily& family();
};

}  // namespace splitstep
