// The helpers every case schema encodes and decodes its fields with: typed values in, typed
// values out, enums by their EnumNames.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/EnumNames.hpp"
#include "measure/CaseFields.hpp"

namespace splitstep::field_codec {

inline void put(CaseFields& fields, std::string_view name, FieldValue value) {
  fields.values.insert_or_assign(std::string(name), std::move(value));
}

template <NamedEnum Enum>
void putEnum(CaseFields& fields, std::string_view name, Enum value) {
  put(fields, name, std::string(toString(value)));
}

inline void putInteger(CaseFields& fields, std::string_view name, std::uint64_t value) {
  put(fields, name, static_cast<std::int64_t>(value));
}

template <typename T>
std::optional<T> get(const CaseFields& fields, std::string_view name) {
  const T* value = fields.get<T>(name);
  return value ? std::optional<T>(*value) : std::nullopt;
}

template <NamedEnum Enum>
std::optional<Enum> getEnum(const CaseFields& fields, std::string_view name) {
  const std::string* text = fields.get<std::string>(name);
  return text ? enumFromString<Enum>(*text) : std::nullopt;
}

// A count that cannot be negative; nullopt where it is absent, of another type, or negative.
inline std::optional<std::uint64_t> getCount(const CaseFields& fields, std::string_view name) {
  const std::int64_t* value = fields.get<std::int64_t>(name);
  if (value == nullptr || *value < 0) return std::nullopt;
  return static_cast<std::uint64_t>(*value);
}

}  // namespace splitstep::field_codec
