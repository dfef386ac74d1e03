// One (value, name) table per enum, read by parsing, printing and help alike, so that adding a
// value is one line. An enum opts in by specialising EnumNames next to its definition:
//
//   template <> struct EnumNames<InputSource> {
//     static constexpr std::array values = {std::pair{InputSource::Pinned,
//     std::string_view("pinned")},
//     ...};
//   };
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace splitstep {

template <typename Enum>
struct EnumNames;

template <typename Enum>
concept NamedEnum = requires {
  EnumNames<Enum>::values;
};

template <NamedEnum Enum>
constexpr std::string_view toString(Enum value) {
  for (const auto& [known, name] : EnumNames<Enum>::values) {
    if (known == value) return name;
  }
  return "?";
}

template <NamedEnum Enum>
constexpr std::optional<Enum> enumFromString(std::string_view name) {
  for (const auto& [known, known_name] : EnumNames<Enum>::values) {
    if (known_name == name) return known;
  }
  return std::nullopt;
}

// Every name in the table's order, as an array: the values a typed field may take, for the
// results file's catalogue.
template <NamedEnum Enum>
constexpr auto enumNames() {
  std::array<std::string_view, EnumNames<Enum>::values.size()> names{};
  for (std::size_t i = 0; i < names.size(); ++i) names[i] = EnumNames<Enum>::values[i].second;
  return names;
}

// "loop, foreach, fused": the accepted names, for help texts and error messages.
template <NamedEnum Enum>
std::string enumChoices() {
  std::string text;
  for (const auto& [known, name] : EnumNames<Enum>::values) {
    if (!text.empty()) text += ", ";
    text += name;
  }
  return text;
}

}  // namespace splitstep
