// Every option of splitstep, declared once: its name, default, help, how its text becomes part of
// the plan, and how the plan gives it back (the typed value that is hashed and written to the
// JSON report). The usage text, the INI keys (the same names), the plan and
// RunPlan::entries() all come from this table: adding an option is one entry in its section and,
// where it needs one, a field of the plan.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/TypedValue.hpp"
#include "options/OptionValue.hpp"
#include "options/OutputInfo.hpp"
#include "options/RunPlan.hpp"

namespace splitstep {

// A nccl-tests style size sweep (-b, -e, -f), before it is expanded into the plan's sizes.
struct SizeSweep {
  std::optional<std::uint64_t> min_bytes;
  std::optional<std::uint64_t> max_bytes;
  int factor = 2;
};

// What the options build: the plan, and the settings that rules turn into parts of it.
struct PlanDraft {
  RunPlan plan;
  SizeSweep sweep;
};

// Where an option's value came from, each source winning over the ones before it: a built-in
// default, the CPU preset (taken where no rank sees a GPU), a config file, the command line.
enum class OptionSource { Default, Preset, ConfigFile, CommandLine };

struct OptionSpec {
  std::string name;
  std::optional<std::string> default_text;  // parsed when nothing gives the option; none: unset
  std::string help;
  bool is_switch = false;  // a flag without a value (--queued-start); true/false in INI files
  bool hidden = false;     // a test's fault hook (--test-*): accepted, but not in --help
  // Parses the option's text (a switch's is "on" or "off") into the draft; throws UsageError.
  std::function<void(const OptionValue& value, PlanDraft& draft)> parse;
  // The option's value, typed, read back from the plan; nullptr where another entry holds it (a
  // sweep's bounds are the sizes they expand to; an output file's path is OutputPlan::files').
  std::function<TypedValue(const RunPlan& plan)> canonical;
};

// The options under one heading of --help: a suite's, the outputs', ...
struct OptionSection {
  std::string title;
  std::vector<OptionSpec> options;
};

// In the order the usage text lists them, without the output files' options.
const std::vector<OptionSection>& optionSections();

// The same, with an option for each output file of `outputs` opening the outputs' section.
std::vector<OptionSection> optionSections(std::span<const OutputInfo> outputs);

// The sections' options in one list (without the output files'), in the order RunPlan::entries()
// lists them.
const std::vector<OptionSpec>& optionTable();

// Rules that relate options to each other, applied once every option was parsed alone
// (options/PlanRules.cpp): a size sweep becomes the sizes, and contradictory settings are refused
// naming both. `sources` says where each option came from: the command line wins over a config
// file.
void applyPlanRules(PlanDraft& draft, const std::map<std::string, OptionSource>& sources);

}  // namespace splitstep
