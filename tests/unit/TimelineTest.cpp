#include "measure/Timeline.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

class FixedTimer final : public IntervalTimer {
 public:
  explicit FixedTimer(std::optional<HostSpan> span) : span_(span) {}
  void start() override {}
  void stop() override {}
  double seconds() const override { return 0; }
  std::optional<HostSpan> hostSpan() const override { return span_; }

 private:
  std::optional<HostSpan> span_;
};

TEST(Timeline, SpansCarryTheCaseInProgress) {
  Timeline timeline(true, true);
  timeline.add(Track::Host, span_kind::kCheck, "before", {1, 2});
  timeline.setCase("step mlp bf16 overlap");
  const auto placed = timeline.addDevice(Track::Comm, span_kind::kCollective,
                                         "allreduce bucket 0 (25 MiB)", FixedTimer(HostSpan{3, 4}));
  ASSERT_TRUE(placed);
  EXPECT_DOUBLE_EQ(placed->end, 4);
  ASSERT_EQ(timeline.spans().size(), 2u);
  EXPECT_EQ(timeline.spans()[0].label, "");
  const TimelineSpan& bucket = timeline.spans()[1];
  EXPECT_EQ(bucket.track, Track::Comm);
  EXPECT_EQ(bucket.kind, span_kind::kCollective);
  EXPECT_EQ(bucket.name, "allreduce bucket 0 (25 MiB)");
  EXPECT_EQ(bucket.label, "step mlp bf16 overlap");
  EXPECT_DOUBLE_EQ(bucket.span.start, 3);
}

TEST(Timeline, AnIntervalTheDeviceCannotPlaceIsLeftOut) {
  Timeline timeline(true, true);
  EXPECT_FALSE(timeline.addDevice(Track::Work, span_kind::kSample, "x", FixedTimer(std::nullopt)));
  EXPECT_TRUE(timeline.spans().empty());
}

TEST(Timeline, AHostScopeSpansItsLifetime) {
  Timeline timeline(true, true);
  const double before = hostSeconds();
  { Timeline::HostScope scope(timeline, span_kind::kMeasure, "warm-up"); }
  const double after = hostSeconds();
  ASSERT_EQ(timeline.spans().size(), 1u);
  const TimelineSpan& span = timeline.spans()[0];
  EXPECT_EQ(span.track, Track::Host);
  EXPECT_EQ(span.name, "warm-up");
  EXPECT_LE(before, span.span.start);
  EXPECT_LE(span.span.start, span.span.end);
  EXPECT_LE(span.span.end, after);
}

TEST(Timeline, ForgetKeepsSpansOnlyForATrace) {
  Timeline kept(true, true);
  Timeline used(true, false);
  for (Timeline* t : {&kept, &used}) {
    t->add(Track::Host, span_kind::kCase, "a", {1, 2});
    t->forget();
  }
  EXPECT_EQ(kept.spans().size(), 1u);
  EXPECT_TRUE(used.spans().empty());
}

TEST(Timeline, ADisabledTimelineRecordsNothing) {
  Timeline disabled;
  EXPECT_FALSE(disabled.enabled());
  disabled.add(Track::Host, span_kind::kCase, "a", {1, 2});
  { Timeline::HostScope scope(disabled, span_kind::kCheck, "check"); }
  EXPECT_FALSE(
      disabled.addDevice(Track::Work, span_kind::kSample, "x", FixedTimer(HostSpan{1, 2})));
  EXPECT_TRUE(disabled.spans().empty());
}

}  // namespace
}  // namespace splitstep
