// A case's typed fields: what a suite's case schema (harness/cases/) encodes and every later
// layer carries, gathers and writes without knowing the suite. Values keep their types from the
// suite to the results file: a byte count is an integer, never its text.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/EnumNames.hpp"

namespace splitstep {

using IntegerList = std::vector<std::int64_t>;
using FieldValue = std::variant<std::string, std::int64_t, double, IntegerList>;

// The type of a field, named as the results file's catalogue and the samples' codec name it.
enum class FieldType { String, Integer, Number, Integers };

template <>
struct EnumNames<FieldType> {
  static constexpr std::array values = {
      std::pair{FieldType::String, std::string_view("string")},
      std::pair{FieldType::Integer, std::string_view("integer")},
      std::pair{FieldType::Number, std::string_view("number")},
      std::pair{FieldType::Integers, std::string_view("integer list")}};
};

// One field of a case schema: its name, type and unit ("" where it has none), and one line on
// what it holds, for the results file's catalogue.
struct FieldSpec {
  std::string_view name;
  FieldType type;
  std::string_view unit;
  std::string_view help;
  // The names a text field takes, in the order tables and plots list them (an enum's names);
  // empty where any name goes (a model, a collective: the catalogue lists those elsewhere).
  std::span<const std::string_view> values = {};
};

// A field's value as text for a table cell: integers and numbers in full, a list joined by ';'.
std::string fieldText(const FieldValue& value);

// The type `value` holds.
FieldType typeOf(const FieldValue& value);

// Whether `value` holds a value of `type`.
bool hasType(const FieldValue& value, FieldType type);

struct CaseFields {
  std::string family;  // the case schema that wrote them (a CaseFamily's name); "" for none
  std::map<std::string, FieldValue, std::less<>> values;

  bool operator==(const CaseFields&) const = default;

  // The field `name` when it holds a T; nullptr where it is absent or of another type.
  template <typename T>
  const T* get(std::string_view name) const {
    const auto it = values.find(name);
    return it == values.end() ? nullptr : std::get_if<T>(&it->second);
  }
};

}  // namespace splitstep
