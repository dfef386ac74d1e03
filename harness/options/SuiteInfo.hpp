// What the options need to know of a suite: its name, whether it joins the default run, its line
// in the usage text. The suites declare theirs (suites/SuiteCatalog.hpp lists them) and hand the
// list to the option parser, which never includes a suite.
#pragma once

#include <string_view>

namespace splitstep {

struct SuiteInfo {
  std::string_view name;
  bool needs_communicators;  // runs collectives (SuiteContext::communicators)
  bool in_default_run;       // runs when no suite is named
  std::string_view help;     // one line for the usage text
};

}  // namespace splitstep
