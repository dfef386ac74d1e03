#include "options/OptionTable.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <set>
#include <system_error>
#include <variant>

#include "options/Options.hpp"
#include "report/OutputCatalogue.hpp"
#include "suites/SuiteCatalog.hpp"

namespace splitstep {
namespace {

// The table's options and the output files' the catalogue adds.
std::vector<OptionSpec> everyOption() {
  std::vector<OptionSpec> options;
  for (const OptionSection& section : optionSections(outputInfos())) {
    options.insert(options.end(), section.options.begin(), section.options.end());
  }
  return options;
}

TEST(OptionTable, EveryOptionIsDeclaredOnceWithHelpAndAParser) {
  std::set<std::string> names;
  for (const OptionSpec& spec : everyOption()) {
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name;
    EXPECT_FALSE(spec.help.empty()) << spec.name;
    EXPECT_NE(spec.parse, nullptr) << spec.name;
  }
}

TEST(OptionTable, TheHelpAndThePlanEntriesComeFromTheTable) {
  const std::string help = parseCommandLine({"--help"}, suiteCatalog(), outputInfos()).help;
  const TypedFields entries = parseCommandLine({}, suiteCatalog(), outputInfos()).plan.entries();
  for (const OptionSpec& spec : optionTable()) {
    EXPECT_EQ(help.find("--" + spec.name) != std::string::npos, !spec.hidden) << spec.name;
    const bool entered = std::any_of(entries.begin(), entries.end(),
                                     [&](const auto& e) { return e.first == spec.name; });
    EXPECT_EQ(entered, spec.canonical != nullptr) << spec.name;
  }
  // Each output file has its option in the help and its path among the entries, from the
  // catalogue alone.
  for (const OutputSpec& output : outputCatalogue()) {
    const std::string name(output.info.name);
    EXPECT_NE(help.find("--" + name + " "), std::string::npos) << name;
    EXPECT_TRUE(std::any_of(entries.begin(), entries.end(), [&](const auto& e) {
      return e.first == name;
    })) << name;
  }
}

TEST(OptionTable, TheTestHooksAreHiddenFromTheHelpButAccepted) {
  const std::string help = parseCommandLine({"--help"}, suiteCatalog(), outputInfos()).help;
  EXPECT_EQ(help.find("test-"), std::string::npos);
  std::size_t hooks = 0;
  for (const OptionSpec& spec : optionTable()) {
    EXPECT_EQ(spec.hidden, spec.name.starts_with("test-")) << spec.name;
    hooks += spec.hidden ? 1 : 0;
  }
  EXPECT_EQ(hooks, 7u);
  EXPECT_EQ(parseCommandLine({"--test-stall-rank", "1", "--test-stall-after", "2"}, suiteCatalog(),
                             outputInfos())
                .plan.launch.stall_after,
            2);
  EXPECT_EQ(parseCommandLine({"--test-spoil-rank", "1"}, suiteCatalog(), outputInfos())
                .plan.collectives.spoil_rank,
            1);
}

TEST(OptionTable, EveryScalarDefaultParsesBackFromItsText) {
  // A number, count or name the report writes, given as the option's value, yields the same plan
  // entry: what the report says can be pasted back.
  const RunPlan defaults = parseCommandLine({}, suiteCatalog(), outputInfos()).plan;
  for (const OptionSpec& spec : optionTable()) {
    // max-noise's and ci-target's entries are fractions (0.005) where the options take
    // percentages (0.5%).
    if (spec.canonical == nullptr || spec.is_switch || spec.name == "max-noise" ||
        spec.name == "ci-target") {
      continue;
    }
    const TypedValue value = spec.canonical(defaults);
    // On/off options are true/false in the report; lists are JSON arrays.
    if (std::holds_alternative<TypedValue::List>(value.value) ||
        std::holds_alternative<bool>(value.value)) {
      continue;
    }
    const std::string text = typedText(value);
    if (text.empty()) continue;  // --json's default: no file
    const RunPlan again =
        parseCommandLine({"--" + spec.name, text}, suiteCatalog(), outputInfos()).plan;
    EXPECT_EQ(spec.canonical(again), value) << spec.name;
  }
}

// A name in the plan never holds a number: those are typed (the "no number as text").
TEST(OptionTable, NoPlanEntryIsANumberWrittenAsText) {
  const auto number_as_text = [](const TypedValue& value) {
    const auto* name = std::get_if<std::string>(&value.value);
    if (name == nullptr || name->empty()) return false;
    double parsed = 0;
    const auto [end, error] = std::from_chars(name->data(), name->data() + name->size(), parsed);
    return error == std::errc() && end == name->data() + name->size();
  };
  const RunPlan plan =
      parseCommandLine({"--groups", "0,1;2,3", "--matmul-sizes", "64,8x16x32", "--telemetry",
                        "50ms", "--project-internode-latency", "5us"},
                       suiteCatalog(), outputInfos())
          .plan;
  for (const auto& [name, value] : plan.entries()) {
    EXPECT_FALSE(number_as_text(value)) << name;
    if (const auto* items = std::get_if<TypedValue::List>(&value.value)) {
      for (const TypedValue& item : *items) EXPECT_FALSE(number_as_text(item)) << name;
    }
  }
}

TEST(OptionTable, CommandLineBoundsWinOverAConfigFilesList) {
  PlanDraft draft;
  draft.plan.collectives.bytes = {8};
  draft.sweep = {64, 256, 2};
  applyPlanRules(draft, {{"bytes", OptionSource::ConfigFile},
                         {"min-bytes", OptionSource::CommandLine},
                         {"max-bytes", OptionSource::CommandLine}});
  EXPECT_EQ(draft.plan.collectives.bytes, (std::vector<std::uint64_t>{64, 128, 256}));

  PlanDraft list_wins;
  list_wins.plan.collectives.bytes = {8};
  list_wins.sweep = {64, 256, 2};
  applyPlanRules(list_wins, {{"bytes", OptionSource::CommandLine},
                             {"min-bytes", OptionSource::ConfigFile},
                             {"max-bytes", OptionSource::ConfigFile}});
  EXPECT_EQ(list_wins.plan.collectives.bytes, (std::vector<std::uint64_t>{8}));
}

}  // namespace
}  // namespace splitstep
