// --trace: every rank's timeline in the Chrome trace event format (a JSON object with a
// `traceEvents` array), which ui.perfetto.dev and chrome://tracing open. A process per rank
// ("rank R host device name"), a thread per track (host, working stream, communication stream)
// and a counter per telemetry quantity; times in microseconds from the earliest event, on rank
// 0's clock (docs/telemetry.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "collect/TimelineCodec.hpp"
#include "meta/RankInfo.hpp"

namespace splitstep {

inline constexpr const char* kTraceSchema = "splitstep.trace/1";

// `timelines[i]` is the timeline of `ranks[i]`.
nlohmann::json chromeTrace(const std::vector<RankInfo>& ranks,
                           const std::vector<RankTimeline>& timelines,
                           const std::string& command_line);

}  // namespace splitstep
