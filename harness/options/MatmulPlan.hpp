// The matmul suite's part of the plan.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/EnumNames.hpp"

namespace splitstep {

enum class MatmulDtype { Fp32, Tf32, Fp16, Bf16 };

template <>
struct EnumNames<MatmulDtype> {
  static constexpr std::array values = {std::pair{MatmulDtype::Fp32, std::string_view("fp32")},
                                        std::pair{MatmulDtype::Tf32, std::string_view("tf32")},
                                        std::pair{MatmulDtype::Fp16, std::string_view("fp16")},
                                        std::pair{MatmulDtype::Bf16, std::string_view("bf16")}};
};

// C (m x n) = A (m x k) B (k x n).
struct MatmulShape {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;

  bool operator==(const MatmulShape&) const = default;
};

std::string toString(const MatmulShape& shape);  // "8192" when square, else "MxNxK"

struct MatmulPlan {
  std::vector<MatmulShape> shapes;
  std::vector<MatmulDtype> dtypes;
};

}  // namespace splitstep
