// Command line and INI file -> RunPlan (Boost.Program_options). Pure: no MPI, no devices.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "options/RunPlan.hpp"

namespace splitstep {

// Bad input: the message is one line naming the option and the reason.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ParsedCommand {
  enum class Action { Run, Help, Version };
  Action action = Action::Run;
  RunPlan plan;      // valid when action == Run
  std::string help;  // the usage text when action == Help
};

// `args` excludes the program name. The INI file named by --config uses the long option names
// as keys (`matmul-sizes = 4096,8192`); the command line wins over the file. Throws UsageError.
ParsedCommand parseCommandLine(const std::vector<std::string>& args);

// "64K" -> 65536: a byte count with an optional binary suffix K, M, G (also KiB, MiB, GiB),
// as nccl-tests reads -b/-e. Throws UsageError naming `option`.
std::uint64_t parseByteSize(const std::string& option, const std::string& text);

// "2ms" -> 0.002: seconds, with an optional unit ns, us, ms, s, min. Throws UsageError.
double parseDuration(const std::string& option, const std::string& text);

}  // namespace splitstep
