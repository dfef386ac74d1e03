// Command line and INI file -> RunPlan (Boost.Program_options). Pure: no MPI, no devices.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "options/OptionValue.hpp"
#include "options/OutputInfo.hpp"
#include "options/RunPlan.hpp"
#include "options/SuiteInfo.hpp"

namespace splitstep {

struct ParsedCommand {
  enum class Action { Run, Help, Version };
  Action action = Action::Run;
  RunPlan plan;      // valid when action == Run
  std::string help;  // the usage text when action == Help
  // --device was given (on the command line or in the config file): no preset replaces the
  // defaults it would have chosen from.
  bool device_chosen = false;
};

// `args` excludes the program name; `suites` are the suites there are (suites/SuiteCatalog), in
// the order the usage text lists them, and `outputs` the output files (report/OutputCatalogue). The
// INI file named by --config uses the long option names as keys (`matmul-sizes = 4096,8192`); the
// command line wins over the file. `preset`, INI text too, lies under both: its values replace only
// the built-in defaults (options/CpuPreset.hpp). Throws UsageError.
ParsedCommand parseCommandLine(const std::vector<std::string>& args,
                               std::span<const SuiteInfo> suites,
                               std::span<const OutputInfo> outputs, std::string_view preset = {});

}  // namespace splitstep
