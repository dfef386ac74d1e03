// What ran when on one rank: spans on the host's steady clock, on three tracks (the host, the
// working stream, the communication stream), each labelled with the case it belongs to. Read
// by the trace (--trace) and to attribute telemetry readings to cases and phases. Disabled, it
// records nothing and its users skip the work of placing intervals.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/EnumNames.hpp"
#include "common/HostClock.hpp"
#include "measure/MeasureDevice.hpp"

namespace splitstep {

enum class Track { Host, Work, Comm };

template <>
struct EnumNames<Track> {
  static constexpr std::array values = {
      std::pair{Track::Host, std::string_view("host")},
      std::pair{Track::Work, std::string_view("working stream")},
      std::pair{Track::Comm, std::string_view("communication stream")}};
};

// What a span stands for; the trace's categories.
namespace span_kind {
inline constexpr std::string_view kCase = "case";              // host: a case from start to end
inline constexpr std::string_view kMeasure = "measure";        // host: cold start, warm-up, ...
inline constexpr std::string_view kCheck = "check";            // host: a correctness check
inline constexpr std::string_view kSample = "sample";          // device: one timed sample
inline constexpr std::string_view kUntimed = "untimed";        // device: cold start, autorange
inline constexpr std::string_view kPhase = "phase";            // device: a phase of a step
inline constexpr std::string_view kCollective = "collective";  // device: a gradient bucket's
}  // namespace span_kind

struct TimelineSpan {
  Track track = Track::Host;
  std::string kind;   // a span_kind
  std::string name;   // what the trace shows on the span
  std::string label;  // the case it belongs to ("matmul bf16 n=8192"); empty between cases
  HostSpan span;
};

class Timeline {
 public:
  Timeline() = default;  // disabled
  // `keep`: keep every span for the trace; otherwise forget() drops them once used.
  Timeline(bool enabled, bool keep) : enabled_(enabled), keep_(enabled && keep) {}

  bool enabled() const { return enabled_; }

  // Spans recorded from now on belong to the case `label`.
  void setCase(std::string label) { label_ = std::move(label); }
  const std::string& caseLabel() const { return label_; }

  void add(Track track, std::string_view kind, std::string name, HostSpan span);
  // A device interval, once the device has finished it, where the timer can place it on the
  // host's clock: the placed span, or empty.
  std::optional<HostSpan> addDevice(Track track, std::string_view kind, std::string name,
                                    const IntervalTimer& timer);

  // A host span from construction to destruction.
  class HostScope {
   public:
    HostScope(Timeline& timeline, std::string_view kind, std::string name);
    ~HostScope();
    HostScope(const HostScope&) = delete;
    HostScope& operator=(const HostScope&) = delete;

   private:
    Timeline& timeline_;
    std::string_view kind_;
    std::string name_;
    double start_ = 0;
  };

  const std::vector<TimelineSpan>& spans() const { return spans_; }
  // Drops the spans recorded so far unless they are kept for a trace.
  void forget();

 private:
  bool enabled_ = false;
  bool keep_ = false;
  std::string label_;
  std::vector<TimelineSpan> spans_;
};

}  // namespace splitstep
