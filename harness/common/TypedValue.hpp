// A value typed as the results file writes it: switches as true/false, counts as integers,
// durations and fractions as numbers, lists as lists, enums and paths as their names. The plan's
// settings (OptionSpec::canonical) and a derived figure's key are made of them, so no reader
// parses a number out of text or takes a name apart.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace splitstep {

struct TypedValue {
  using List = std::vector<TypedValue>;
  std::variant<bool, std::int64_t, double, std::string, List> value;

  bool operator==(const TypedValue&) const = default;
};

// Named values in a fixed order: the plan's entries, a figure's key.
using TypedFields = std::vector<std::pair<std::string, TypedValue>>;

// The value's canonical text, which the plan's hash mixes: equal values print equally, and values
// of different settings or types differently (a list's texts are quoted).
std::string typedText(const TypedValue& value);

// What values are built with: each names the type, so a value never takes one from an implicit
// conversion.
inline TypedValue typedFlag(bool value) { return {value}; }
inline TypedValue typedInteger(std::int64_t value) { return {value}; }
inline TypedValue typedNumber(double value) { return {value}; }
inline TypedValue typedName(std::string_view value) { return {std::string(value)}; }
inline TypedValue typedList(TypedValue::List values) { return {std::move(values)}; }

}  // namespace splitstep
