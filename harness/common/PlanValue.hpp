// One setting of the run's plan, typed as the results file writes it: switches as true/false,
// counts as integers, durations and fractions as numbers, lists as lists, enums and paths as their
// names. OptionSpec::canonical reads it back from the plan; the JSON writes it as it is, so no
// reader parses a number out of text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace splitstep {

struct PlanValue {
  using List = std::vector<PlanValue>;
  std::variant<bool, std::int64_t, double, std::string, List> value;

  bool operator==(const PlanValue&) const = default;
};

// The value's canonical text, which the plan's hash mixes: equal values print equally, and values
// of different settings or types differently (a list's texts are quoted).
std::string planText(const PlanValue& value);

// What the option tables (and a plan's readers in tests) build values with: each names the type,
// so a value never takes one from an implicit conversion.
inline PlanValue planFlag(bool value) { return {value}; }
inline PlanValue planInteger(std::int64_t value) { return {value}; }
inline PlanValue planNumber(double value) { return {value}; }
inline PlanValue planName(std::string_view value) { return {std::string(value)}; }
inline PlanValue planList(PlanValue::List values) { return {std::move(values)}; }

}  // namespace splitstep
