#include "collect/TimelineCodec.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace splitstep {
namespace {

// Compact rows rather than objects: a long run holds hundreds of thousands of spans.
nlohmann::json spanRow(const TimelineSpan& s) {
  return {static_cast<int>(s.track), s.kind, s.name, s.label, s.span.start, s.span.end};
}

TimelineSpan spanFrom(const nlohmann::json& row) {
  TimelineSpan s;
  const int track = row.at(0).get<int>();
  if (track < 0 || track >= static_cast<int>(EnumNames<Track>::values.size())) {
    throw std::invalid_argument("timeline: unknown track " + std::to_string(track));
  }
  s.track = static_cast<Track>(track);
  row.at(1).get_to(s.kind);
  row.at(2).get_to(s.name);
  row.at(3).get_to(s.label);
  row.at(4).get_to(s.span.start);
  row.at(5).get_to(s.span.end);
  return s;
}

// [time, clock_limits or null, value or null per quantity]: JSON has no NaN.
nlohmann::json readingRow(const TelemetryReading& r) {
  nlohmann::json row = {r.time,
                        r.clock_limits ? nlohmann::json(*r.clock_limits) : nlohmann::json()};
  for (double value : r.values) {
    row.push_back(std::isnan(value) ? nlohmann::json() : nlohmann::json(value));
  }
  return row;
}

TelemetryReading readingFrom(const nlohmann::json& row) {
  TelemetryReading r;
  row.at(0).get_to(r.time);
  if (!row.at(1).is_null()) r.clock_limits = row.at(1).get<std::uint64_t>();
  for (std::size_t q = 0; q < kTelemetryQuantities; ++q) {
    const nlohmann::json& value = row.at(2 + q);
    r.values[q] = value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
  }
  return r;
}

}  // namespace

RankTimeline rankTimeline(const Timeline& timeline, std::vector<TelemetryReading> readings,
                          const ClockOffset& start, const ClockOffset& end) {
  RankTimeline mine;
  const auto onRoot = [&](double t) { return onRootClock(t, start, end); };
  for (TimelineSpan span : timeline.spans()) {
    span.span = {onRoot(span.span.start), onRoot(span.span.end)};
    mine.spans.push_back(std::move(span));
  }
  for (TelemetryReading& reading : readings) reading.time = onRoot(reading.time);
  mine.readings = std::move(readings);
  mine.clock_offset = start.offset;
  mine.clock_uncertainty = std::max(start.uncertainty, end.uncertainty);
  return mine;
}

std::string encodeTimeline(const RankTimeline& timeline) {
  nlohmann::json spans = nlohmann::json::array();
  for (const TimelineSpan& s : timeline.spans) spans.push_back(spanRow(s));
  nlohmann::json readings = nlohmann::json::array();
  for (const TelemetryReading& r : timeline.readings) readings.push_back(readingRow(r));
  return nlohmann::json{{"spans", spans},
                        {"readings", readings},
                        {"clock_offset", timeline.clock_offset},
                        {"clock_uncertainty", timeline.clock_uncertainty}}
      .dump();
}

RankTimeline decodeTimeline(const std::string& text) {
  const nlohmann::json json = nlohmann::json::parse(text);
  RankTimeline timeline;
  for (const nlohmann::json& row : json.at("spans")) timeline.spans.push_back(spanFrom(row));
  for (const nlohmann::json& row : json.at("readings")) {
    timeline.readings.push_back(readingFrom(row));
  }
  json.at("clock_offset").get_to(timeline.clock_offset);
  json.at("clock_uncertainty").get_to(timeline.clock_uncertainty);
  return timeline;
}

}  // namespace splitstep
