#include "measure/Timeline.hpp"

namespace splitstep {

void Timeline::add(Track track, std::string_view kind, std::string name, HostSpan span) {
  if (!enabled_) return;
  spans_.push_back({track, std::string(kind), std::move(name), label_, span});
}

std::optional<HostSpan> Timeline::addDevice(Track track, std::string_view kind, std::string name,
                                            const IntervalTimer& timer) {
  if (!enabled_) return std::nullopt;
  const std::optional<HostSpan> span = timer.hostSpan();
  if (span) add(track, kind, std::move(name), *span);
  return span;
}

Timeline::HostScope::HostScope(Timeline& timeline, std::string_view kind, std::string name)
    : timeline_(timeline), kind_(kind), name_(std::move(name)), start_(hostSeconds()) {}

Timeline::HostScope::~HostScope() {
  timeline_.add(Track::Host, kind_, std::move(name_), {start_, hostSeconds()});
}

void Timeline::forget() {
  if (!keep_) spans_.clear();
}

}  // namespace splitstep
