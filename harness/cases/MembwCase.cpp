#include "cases/MembwCase.hpp"

#include <array>

#include "cases/FieldCodec.hpp"

namespace splitstep {
namespace {

using namespace field_codec;

constexpr std::array kFields = {
    FieldSpec{"kind", FieldType::String, "", "what is copied: copy, triad, h2d/d2h pinned, ..."},
    FieldSpec{"bytes", FieldType::Integer, "B", "the size of each array"}};

constexpr std::array kRates = {rates::kMemoryBandwidth};

constexpr CaseFamily kFamily{"membw", kFields, kRates};

}  // namespace

const CaseFamily& MembwCase::family() { return kFamily; }

CaseFields MembwCase::encode() const {
  CaseFields fields{std::string(kFamily.name), {}};
  put(fields, "kind", kind);
  putInteger(fields, "bytes", bytes);
  return fields;
}

std::optional<MembwCase> MembwCase::decode(const CaseFields& fields) {
  if (fields.family != kFamily.name) return std::nullopt;
  const auto kind = get<std::string>(fields, "kind");
  const auto bytes = getCount(fields, "bytes");
  if (!kind || !bytes) return std::nullopt;
  return MembwCase{*kind, *bytes};
}

}  // namespace splitstep
