#include "cases/MembwCase.hpp"

#include <array>
#include <string_view>

#include "cases/FieldCodec.hpp"

namespace splitstep {
namespace {

using namespace field_codec;

// Each field's name, written once: the catalogue, encode() and decode() read it here.
namespace field_name {
constexpr std::string_view kKind = "kind";
constexpr std::string_view kBytes = "bytes";
}  // namespace field_name

constexpr std::array kFields = {
    FieldSpec{field_name::kKind, FieldType::String, "",
              "what is copied: copy, triad, h2d/d2h pinned, ..."},
    FieldSpec{field_name::kBytes, FieldType::Integer, "B", "the size of each array"}};

constexpr std::array kRates = {rates::kMemoryBandwidth};

constexpr CaseFamily kFamily{"membw", kFields, kRates};

}  // namespace

const CaseFamily& MembwCase::family() { return kFamily; }

CaseFields MembwCase::encode() const {
  CaseFields fields{std::string(kFamily.name), {}};
  put(fields, field_name::kKind, kind);
  putInteger(fields, field_name::kBytes, bytes);
  return fields;
}

std::optional<MembwCase> MembwCase::decode(const CaseFields& fields) {
  if (fields.family != kFamily.name) return std::nullopt;
  const auto kind = get<std::string>(fields, field_name::kKind);
  const auto bytes = getCount(fields, field_name::kBytes);
  if (!kind || !bytes) return std::nullopt;
  return MembwCase{*kind, *bytes};
}

}  // namespace splitstep
