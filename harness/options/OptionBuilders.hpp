// What the option tables (options/OptionTable.cpp, options/StepOptions.cpp) build their entries
// with: the entry makers and the typed values. Internal to the options layer.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/PlanValue.hpp"
#include "options/OptionTable.hpp"

namespace splitstep {

using ParseFn = void (*)(const OptionValue&, PlanDraft&);
using CanonicalFn = PlanValue (*)(const RunPlan&);

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

// Canonical values (common/PlanValue.hpp). Durations in seconds and noise as a fraction.
inline PlanValue number(double value) { return planNumber(value); }
inline PlanValue flag(bool value) { return planFlag(value); }
template <std::integral Integer>
PlanValue integer(Integer value) {
  return planInteger(static_cast<std::int64_t>(value));
}
// Buckets in MiB, as the options take them: bytes / 2^20 is exact in a double.
inline PlanValue mib(std::uint64_t bytes) {
  return planNumber(static_cast<double>(bytes) / (1 << 20));
}
inline PlanValue text(std::string_view value) { return planName(value); }
// A list of counts or of names.
template <typename T>
PlanValue list(const std::vector<T>& values) {
  PlanValue::List out;
  for (const T& value : values) {
    if constexpr (std::integral<T>) {
      out.push_back(integer(value));
    } else {
      out.push_back(planName(value));
    }
  }
  return planList(std::move(out));
}
template <NamedEnum Enum>
PlanValue names(const std::vector<Enum>& values) {
  PlanValue::List out;
  for (Enum value : values) out.push_back(planName(toString(value)));
  return planList(std::move(out));
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
