#include "meta/BuildInfo.hpp"

namespace splitstep {

const char* splitstepVersion() { return SPLITSTEP_VERSION; }

std::string buildId() { return std::string(splitstepVersion()) + "+" + gitRevision(); }

}  // namespace splitstep
