// What --help prints, and the option descriptions the parser and the usage text share: the
// table's sections (options/OptionTable.hpp) as Boost.Program_options descriptions. Internal to
// the options layer.
#pragma once

#include <boost/program_options/options_description.hpp>
#include <span>
#include <string>
#include <string_view>

#include "options/OptionTable.hpp"
#include "options/OutputInfo.hpp"
#include "options/SuiteInfo.hpp"

namespace splitstep {

// --help, --version and --config: the options that are no part of the plan.
boost::program_options::options_description generalOptions();

// Every option that the command line and a config file take, `outputs`' files and the test hooks
// too.
boost::program_options::options_description planOptions(std::span<const OutputInfo> outputs);

// One example of --help: a command line as a user types it, and what it does.
struct UsageExample {
  std::string_view command;
  std::string_view meaning;
};
std::span<const UsageExample> usageExamples();

// One exit status of splitstep and what it means ("128+N": a signal's).
struct ExitStatus {
  std::string_view status;
  std::string_view meaning;
};
std::span<const ExitStatus> exitStatuses();

// A named thing --help lists with one line about it: a preset of configs/, an environment
// variable splitstep reads or records, a file it reads or writes.
struct HelpEntry {
  std::string_view name;
  std::string_view meaning;
};
// Every configs/*.ini, by file name (a test holds the list to the folder).
std::span<const HelpEntry> presetEntries();

// The manual: usage, the suites, every section's options but the test hooks, the presets, the
// examples, the environment, the files, the exit statuses; no line over 100 columns.
std::string usageText(std::span<const SuiteInfo> suites, std::span<const OutputInfo> outputs);

}  // namespace splitstep
