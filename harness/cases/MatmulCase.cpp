#include "cases/MatmulCase.hpp"

#include <array>

#include "cases/FieldCodec.hpp"

namespace splitstep {
namespace {

using namespace field_codec;

constexpr auto kDtypes = enumNames<MatmulDtype>();

constexpr std::array kFields = {
    FieldSpec{"dtype", FieldType::String, "", "element type (tf32: fp32 on tensor cores)", kDtypes},
    FieldSpec{"m", FieldType::Integer, "", "rows of A and C"},
    FieldSpec{"n", FieldType::Integer, "", "columns of B and C"},
    FieldSpec{"k", FieldType::Integer, "", "columns of A, rows of B"},
    FieldSpec{"cuda_fp32_matmul", FieldType::String, "", "what cuBLAS used for fp32 (GPU only)"}};

constexpr std::array kRates = {rates::kTflops};

constexpr CaseFamily kFamily{"matmul", kFields, kRates};

}  // namespace

const CaseFamily& MatmulCase::family() { return kFamily; }

CaseFields MatmulCase::encode() const {
  CaseFields fields{std::string(kFamily.name), {}};
  putEnum(fields, "dtype", dtype);
  put(fields, "m", shape.m);
  put(fields, "n", shape.n);
  put(fields, "k", shape.k);
  if (!cuda_fp32_matmul.empty()) put(fields, "cuda_fp32_matmul", cuda_fp32_matmul);
  return fields;
}

std::optional<MatmulCase> MatmulCase::decode(const CaseFields& fields) {
  if (fields.family != kFamily.name) return std::nullopt;
  const auto dtype = getEnum<MatmulDtype>(fields, "dtype");
  const auto m = get<std::int64_t>(fields, "m");
  const auto n = get<std::int64_t>(fields, "n");
  const auto k = get<std::int64_t>(fields, "k");
  if (!dtype || !m || !n || !k) return std::nullopt;
  return MatmulCase{
      *dtype, {*m, *n, *k}, get<std::string>(fields, "cuda_fp32_matmul").value_or(std::string())};
}

}  // namespace splitstep
