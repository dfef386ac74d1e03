#include "report/ChromeTrace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace splitstep {
namespace {

// Thread ids: 0 is left to the process's counters, each track is 1 + its index.
int tidOf(Track track) { return 1 + static_cast<int>(track); }

nlohmann::json metadata(const char* what, int pid, int tid, nlohmann::json args) {
  return {{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"ts", 0}, {"args", args}};
}

// The earliest time of any span or reading: the trace's zero.
double originOf(const std::vector<RankTimeline>& timelines) {
  double origin = std::numeric_limits<double>::infinity();
  for (const RankTimeline& t : timelines) {
    for (const TimelineSpan& s : t.spans) origin = std::min(origin, s.span.start);
    for (const TelemetryReading& r : t.readings) origin = std::min(origin, r.time);
  }
  return std::isfinite(origin) ? origin : 0;
}

// The clock limits that slowed a GPU at least once in the run, as counter series.
std::vector<ClockLimit> limitsSeen(const std::vector<RankTimeline>& timelines) {
  std::uint64_t seen = 0;
  for (const RankTimeline& t : timelines) {
    for (const TelemetryReading& r : t.readings) seen |= r.clock_limits.value_or(0);
  }
  std::vector<ClockLimit> limits;
  for (const ClockLimit& limit : kClockLimits) {
    if ((seen & limit.bit) != 0) limits.push_back(limit);
  }
  return limits;
}

}  // namespace

nlohmann::json chromeTrace(const std::vector<RankInfo>& ranks,
                           const std::vector<RankTimeline>& timelines,
                           const std::string& command_line) {
  if (ranks.size() != timelines.size()) {
    throw std::invalid_argument("a trace needs one timeline per rank");
  }
  const double origin = originOf(timelines);
  const auto micros = [origin](double seconds) { return (seconds - origin) * 1e6; };
  const std::vector<ClockLimit> limits = limitsSeen(timelines);
  nlohmann::json events = nlohmann::json::array();
  nlohmann::json alignment = nlohmann::json::array();
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const RankInfo& rank = ranks[i];
    const RankTimeline& timeline = timelines[i];
    const int pid = rank.rank;
    events.push_back(metadata("process_name", pid, 0,
                              {{"name", fmt::format("rank {} {} {} {}", rank.rank, rank.host,
                                                    rank.device, rank.device_name)}}));
    events.push_back(metadata("process_sort_index", pid, 0, {{"sort_index", pid}}));
    for (const auto& [track, name] : EnumNames<Track>::values) {
      events.push_back(metadata("thread_name", pid, tidOf(track), {{"name", name}}));
      events.push_back(
          metadata("thread_sort_index", pid, tidOf(track), {{"sort_index", tidOf(track)}}));
    }
    for (const TimelineSpan& s : timeline.spans) {
      events.push_back({{"ph", "X"},
                        {"name", s.name},
                        {"cat", s.kind},
                        {"pid", pid},
                        {"tid", tidOf(s.track)},
                        {"ts", micros(s.span.start)},
                        {"dur", std::max(0.0, (s.span.end - s.span.start) * 1e6)},
                        {"args", {{"case", s.label}}}});
    }
    for (const TelemetryReading& r : timeline.readings) {
      for (const auto& [quantity, key] : EnumNames<TelemetryQuantity>::values) {
        if (!r.has(quantity)) continue;
        events.push_back({{"ph", "C"},
                          {"name", quantityLabel(quantity)},
                          {"pid", pid},
                          {"tid", 0},
                          {"ts", micros(r.time)},
                          {"args", {{"value", r.value(quantity)}}}});
      }
      if (r.clock_limits && !limits.empty()) {
        nlohmann::json held = nlohmann::json::object();
        for (const ClockLimit& limit : limits) {
          held[std::string(limit.name)] = (*r.clock_limits & limit.bit) != 0 ? 1 : 0;
        }
        events.push_back({{"ph", "C"},
                          {"name", "clock limited by"},
                          {"pid", pid},
                          {"tid", 0},
                          {"ts", micros(r.time)},
                          {"args", held}});
      }
    }
    alignment.push_back({{"rank", rank.rank},
                         {"offset_s", timeline.clock_offset},
                         {"uncertainty_s", timeline.clock_uncertainty}});
  }
  return {{"traceEvents", events},
          {"displayTimeUnit", "ms"},
          {"otherData",
           {{"schema", kTraceSchema},
            {"command_line", command_line},
            {"clock", "host steady clock of rank 0, microseconds from the earliest event"},
            {"clock_alignment", alignment}}}};
}

}  // namespace splitstep
