// What this binary is: its version and the source revision it was built from.
#pragma once

#include <string>

namespace splitstep {

const char* splitstepVersion();
const char* gitRevision();  // generated at build time by cmake/WriteGitRevision.cmake

// "0.1.0+abc123def456": identifies the binary in the run-plan agreement.
std::string buildId();

}  // namespace splitstep
