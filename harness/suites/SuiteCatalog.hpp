// What suites there are: the catalogue the option parser, the usage text and the suite registry
// all read. It needs no LibTorch, so the options layer can use it; the suites themselves register
// their factories (suites/Suite.hpp).
#pragma once

#include <string_view>
#include <vector>

namespace splitstep {

struct SuiteInfo {
  std::string_view name;
  bool needs_communicators;  // runs collectives (SuiteContext::communicators)
  bool in_default_run;       // runs when no suite is named
  std::string_view help;     // one line for the usage text
};

// In the order the usage text lists them: matmul, membw, every collective, step.
const std::vector<SuiteInfo>& suiteCatalog();
// The suite called `name`; nullptr if there is none.
const SuiteInfo* findSuite(std::string_view name);

}  // namespace splitstep
