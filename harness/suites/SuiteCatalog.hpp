// What suites there are: the catalogue the option parser (handed it by main), the usage text
// and the suite registry all read. Each suite declares its SuiteInfo once, in its header, and its
// factory's registration names that declaration (suites/Suite.hpp); every collective of
// comm/Collectives.cpp is a suite. It needs no LibTorch, so the unit tests read it.
#pragma once

#include <string_view>
#include <vector>

#include "options/SuiteInfo.hpp"

namespace splitstep {

// In the order the usage text lists them: matmul, membw, every collective, step.
const std::vector<SuiteInfo>& suiteCatalog();
// The suite called `name`; nullptr if there is none.
const SuiteInfo* findSuite(std::string_view name);

}  // namespace splitstep
