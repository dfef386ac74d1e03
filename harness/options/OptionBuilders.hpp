// What the option tables (options/OptionTable.cpp, options/StepOptions.cpp) build their entries
// with: the entry makers and the canonical texts. Internal to the options layer.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "options/OptionTable.hpp"

namespace splitstep {

using ParseFn = void (*)(const OptionValue&, PlanDraft&);
using CanonicalFn = std::string (*)(const RunPlan&);

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

// Canonical texts. Durations in seconds and noise as a fraction, with every digit a double
// holds: the text is hashed, so equal plans must print equally and different ones differently.
inline std::string number(double value) { return fmt::format("{}", value); }
inline std::string onOff(bool value) { return value ? "on" : "off"; }
inline std::string trueFalse(bool value) { return value ? "true" : "false"; }
// Buckets in MiB, as the options take them: bytes / 2^20 is exact in a double.
inline std::string mib(std::uint64_t bytes) {
  return fmt::format("{}", static_cast<double>(bytes) / (1 << 20));
}
template <typename T>
std::string joined(const std::vector<T>& values) {
  return fmt::format("{}", fmt::join(values, ","));
}
template <NamedEnum Enum>
std::string names(const std::vector<Enum>& values) {
  std::vector<std::string_view> out;
  for (Enum value : values) out.push_back(toString(value));
  return joined(out);
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
