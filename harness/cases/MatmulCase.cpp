#include "cases/MatmulCase.hpp"

#include <array>
#include <string_view>

#include "cases/FieldCodec.hpp"

namespace splitstep {
namespace {

using namespace field_codec;

// Each field's name, written once: the catalogue, encode() and decode() read it here.
namespace field_name {
constexpr std::string_view kDtype = "dtype";
constexpr std::string_view kM = "m";
constexpr std::string_view kN = "n";
constexpr std::string_view kK = "k";
constexpr std::string_view kCudaFp32Matmul = "cuda_fp32_matmul";
}  // namespace field_name

constexpr auto kDtypes = enumNames<MatmulDtype>();

constexpr std::array kFields = {
    FieldSpec{field_name::kDtype, FieldType::String, "",
              "element type (tf32: fp32 on tensor cores)", kDtypes},
    FieldSpec{field_name::kM, FieldType::Integer, "", "rows of A and C"},
    FieldSpec{field_name::kN, FieldType::Integer, "", "columns of B and C"},
    FieldSpec{field_name::kK, FieldType::Integer, "", "columns of A, rows of B"},
    FieldSpec{field_name::kCudaFp32Matmul, FieldType::String, "",
              "what cuBLAS used for fp32 (GPU only)"}};

constexpr std::array kRates = {rates::kTflops};

constexpr CaseFamily kFamily{"matmul", kFields, kRates};

}  // namespace

const CaseFamily& MatmulCase::family() { return kFamily; }

CaseFields MatmulCase::encode() const {
  CaseFields fields{std::string(kFamily.name), {}};
  putEnum(fields, field_name::kDtype, dtype);
  put(fields, field_name::kM, shape.m);
  put(fields, field_name::kN, shape.n);
  put(fields, field_name::kK, shape.k);
  if (!cuda_fp32_matmul.empty()) put(fields, field_name::kCudaFp32Matmul, cuda_fp32_matmul);
  return fields;
}

std::optional<MatmulCase> MatmulCase::decode(const CaseFields& fields) {
  if (fields.family != kFamily.name) return std::nullopt;
  const auto dtype = getEnum<MatmulDtype>(fields, field_name::kDtype);
  const auto m = get<std::int64_t>(fields, field_name::kM);
  const auto n = get<std::int64_t>(fields, field_name::kN);
  const auto k = get<std::int64_t>(fields, field_name::kK);
  if (!dtype || !m || !n || !k) return std::nullopt;
  return MatmulCase{*dtype,
                    {*m, *n, *k},
                    get<std::string>(fields, field_name::kCudaFp32Matmul).value_or(std::string())};
}

}  // namespace splitstep
