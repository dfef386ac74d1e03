// %timeit for GPU work on every rank: cold start, warm-up, autorange, samples until a stopping
// rule holds, device and host time per sample. Every decision that changes how often the body
// runs is agreed over all ranks, because the body may hold collectives.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "measure/MeasureDevice.hpp"
#include "measure/MeasureSettings.hpp"
#include "measure/Measurement.hpp"
#include "measure/RankAgreement.hpp"
#include "measure/Timeline.hpp"
#include "measure/WallClock.hpp"

namespace splitstep {

class Measurer {
 public:
  // The launch queue of a CUDA stream holds about a thousand launches; a queued start with more
  // would block the host before it can release the stream.
  static constexpr int kMaxQueuedLoops = 256;
  static constexpr int kMaxLoops = 1 << 20;

  // `wall_clock` reads host time (a steady clock unless a test gives its own). With an enabled
  // `timeline`, the Measurer records its phases on the host track and each timed execution on
  // the working stream's, anchoring the device's clock (outside the timed intervals) before
  // each, so that every interval is placed on the host's clock afresh.
  Measurer(MeasureDevice& device, RankAgreement& agreement, MeasureSettings settings,
           Timeline* timeline = nullptr);
  Measurer(MeasureDevice& device, RankAgreement& agreement, MeasureSettings settings,
           WallClock& wall_clock, Timeline* timeline = nullptr);

  // `after_sample`, if given, runs after each timed sample once the device has finished it:
  // a body that times its own parts (a training step's phases) reads its timers there.
  Measurement measure(const std::function<void()>& body,
                      const std::function<void()>& after_sample = nullptr);

 private:
  struct Timed {
    double device = 0;  // the whole sample, on the device's clock
    double host = 0;    // how long the host took to queue it
  };

  // What the samples execute, and how.
  struct Timing {
    std::function<void()> run;           // the body, or its graph's replay
    std::unique_ptr<GraphReplay> graph;  // owns what `run` replays
    // How many of a sample's executions are queued behind a stream hold before it is released:
    // none, the first (a head start), or all of them (queued_start).
    int queued = 0;
    std::vector<std::string> method;  // for Measurement::method
  };

  void coldStart(const std::function<void()>& body, Measurement& m);
  void warmUp(const std::function<void()>& body);
  Timing prepare(const std::function<void()>& body, Measurement& m);
  void takeSamples(const Timing& timing, const std::function<void()>& after_sample, Measurement& m);
  // Drops the first `count` samples (and their host times and waits), a start-up transient,
  // and notes it with how far their median lay from the rest's.
  void leaveOutTransient(std::size_t count, Measurement& m);
  void summarize(const Timing& timing, Measurement& m) const;

  // `kind` and `name`: how the timeline shows the interval (span_kind::kSample, kUntimed).
  Timed timeOnce(const std::function<void()>& run, int loops, int queued, Measurement& m,
                 std::string_view kind, const std::string& name);
  // Before an interval that the timeline should place: anchors the device's clock.
  void anchor();
  double timerOverhead();
  int autorange(const std::function<void()>& run, double target_seconds, Measurement& m);
  void note(Measurement& m, const std::string& text);

  MeasureDevice& device_;
  RankAgreement& agreement_;
  MeasureSettings settings_;
  SteadyWallClock steady_clock_;
  WallClock& wall_clock_;
  std::unique_ptr<IntervalTimer> timer_;
  Timeline* timeline_;  // nullptr or disabled: nothing recorded
  bool flush_ = false;
};

}  // namespace splitstep
