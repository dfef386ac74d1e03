// What the option tables (options/OptionTable.cpp, options/StepOptions.cpp) build their entries
// with: the entry makers and the typed values. Internal to the options layer.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/TypedValue.hpp"
#include "options/OptionTable.hpp"

namespace splitstep {

using ParseFn = void (*)(const OptionValue&, PlanDraft&);
using CanonicalFn = TypedValue (*)(const RunPlan&);

inline OptionSpec option(std::string name, std::optional<std::string> default_text,
                         std::string help, ParseFn parse, CanonicalFn canonical) {
  return {std::move(name), std::move(default_text), std::move(help), false, false, parse,
          canonical};
}

inline OptionSpec flagOption(std::string name, std::string help, ParseFn parse,
                             CanonicalFn canonical) {
  return {std::move(name), "off", std::move(help), true, false, parse, canonical};
}

// A fault hook for the tests of the fault handling (--test-*): parsed, hashed and reported like
// any option, but left out of --help, which is for users.
inline OptionSpec testHook(std::string name, std::string default_text, std::string help,
                           ParseFn parse, CanonicalFn canonical) {
  return {std::move(name), std::move(default_text), std::move(help), false, true, parse, canonical};
}

// Canonical values (common/TypedValue.hpp). Durations in seconds and noise as a fraction.
inline TypedValue number(double value) { return typedNumber(value); }
inline TypedValue flag(bool value) { return typedFlag(value); }
template <std::integral Integer>
TypedValue integer(Integer value) {
  return typedInteger(static_cast<std::int64_t>(value));
}
// Buckets in MiB, as the options take them: bytes / 2^20 is exact in a double.
inline TypedValue mib(std::uint64_t bytes) {
  return typedNumber(static_cast<double>(bytes) / (1 << 20));
}
inline TypedValue text(std::string_view value) { return typedName(value); }
// A list of counts or of names.
template <typename T>
TypedValue list(const std::vector<T>& values) {
  TypedValue::List out;
  for (const T& value : values) {
    if constexpr (std::integral<T>) {
      out.push_back(integer(value));
    } else {
      out.push_back(typedName(value));
    }
  }
  return typedList(std::move(out));
}
template <NamedEnum Enum>
TypedValue names(const std::vector<Enum>& values) {
  TypedValue::List out;
  for (Enum value : values) out.push_back(typedName(toString(value)));
  return typedList(std::move(out));
}

inline int integerIn(const OptionValue& value, int min, int max) {
  return static_cast<int>(value.integer(min, max));
}

inline bool positive(double x) { return x > 0; }

// The step's own options, in --help order.
std::vector<OptionSpec> stepOptions();
// One option per shape option of the step's models.
std::vector<OptionSpec> stepShapeOptions();

}  // namespace splitstep
