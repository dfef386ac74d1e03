#include "report/TraceReporter.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/Units.hpp"
#include "report/AtomicFile.hpp"
#include "report/ChromeTrace.hpp"

namespace splitstep {

void TraceReporter::reportContext(const RunContext& context) {
  ranks_ = context.ranks;
  command_line_ = context.command_line;
}

void TraceReporter::reportTimelines(const std::vector<RankTimeline>& timelines) {
  if (timelines.empty() || timelines.size() > ranks_.size()) return;
  const std::vector<RankInfo> ranks(ranks_.begin(),
                                    ranks_.begin() + static_cast<std::ptrdiff_t>(timelines.size()));
  writeFileAtomically(path_, chromeTrace(ranks, timelines, command_line_).dump());
  if (timelines.size() < ranks_.size()) {
    written_ = fmt::format("trace of rank 0 alone written to {} (the run ended early)\n", path_);
    return;
  }
  double uncertainty = 0;
  for (const RankTimeline& t : timelines) uncertainty = std::max(uncertainty, t.clock_uncertainty);
  written_ = fmt::format(
      "trace written to {} (ranks on rank 0's clock within {}; opens in ui.perfetto.dev)\n", path_,
      formatSeconds(uncertainty));
}

}  // namespace splitstep
