// What the options need to know of an output file: its option and its line in the usage text. The
// outputs declare theirs (report/OutputCatalogue.hpp lists them) and hand the list to the option
// parser, which never includes a reporter.
#pragma once

#include <string_view>

namespace splitstep {

struct OutputInfo {
  std::string_view name;  // the option without its dashes, and the INI key: "json"
  std::string_view help;  // one line for the usage text
  // The output draws every rank's timeline (the trace): each rank records its spans, and rank 0
  // gathers them once the suites are done.
  bool needs_timelines = false;
};

}  // namespace splitstep
