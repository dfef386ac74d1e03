#include "measure/Measurer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "measure/StoppingRule.hpp"
#include "stats/Statistics.hpp"

namespace splitstep {

Measurer::Measurer(MeasureDevice& device, RankAgreement& agreement, MeasureSettings settings,
                   Timeline* timeline)
    : Measurer(device, agreement, settings, steady_clock_, timeline) {}

Measurer::Measurer(MeasureDevice& device, RankAgreement& agreement, MeasureSettings settings,
                   WallClock& wall_clock, Timeline* timeline)
    : device_(device),
      agreement_(agreement),
      settings_(settings),
      wall_clock_(wall_clock),
      timer_(device.newTimer()),
      timeline_(timeline != nullptr && timeline->enabled() ? timeline : nullptr) {}

void Measurer::anchor() {
  if (timeline_ != nullptr) device_.anchorClock();
}

void Measurer::note(Measurement& m, const std::string& text) {
  if (std::find(m.notes.begin(), m.notes.end(), text) == m.notes.end()) m.notes.push_back(text);
}

Measurer::Timed Measurer::timeOnce(const std::function<void()>& run, int loops, int queued,
                                   Measurement& m, std::string_view kind, const std::string& name) {
  if (flush_) {
    std::string why_not;
    if (!device_.flushCache(why_not)) {
      note(m, why_not + "; timed with a warm cache");
      flush_ = false;
    }
  }
  std::unique_ptr<StreamHold> hold;
  if (queued > 0) {
    std::string why_not;
    hold = device_.holdStream(why_not);
    if (!hold) note(m, why_not + "; timed without a queued start");
  }
  const bool head_start = hold && queued < loops;
  timer_->start();
  const double host_start = wall_clock_.seconds();
  for (int l = 0; l < loops; ++l) {
    run();
    if (head_start && l + 1 == queued) hold->release();
  }
  const double host = wall_clock_.seconds() - host_start;
  timer_->stop();
  if (hold && !head_start) hold->release();
  device_.synchronize();
  if (timeline_ != nullptr) timeline_->addDevice(Track::Work, kind, name, *timer_);
  if (hold && hold->timedOut()) {
    // The host blocks in a launch when the stream's launch queue, or a library's own work
    // queue (NCCL's), fills up behind the held stream; the hold then gives up after its timeout.
    note(m,
         "the queued start timed out before the host released it (a launch or work queue "
         "filled up): a sample includes launch gaps; use fewer --loops or no --queued-start");
  }
  return {timer_->seconds(), host};
}

void Measurer::warmUp(const std::function<void()>& body) {
  std::optional<Timeline::HostScope> scope;
  if (timeline_ != nullptr) scope.emplace(*timeline_, span_kind::kMeasure, "warm-up");
  const double start = wall_clock_.seconds();
  for (int i = 0; i < settings_.warmup; ++i) body();
  device_.synchronize();
  if (settings_.warmup_time <= 0) return;
  // Warm-up by time ends when the last rank's time is up, so every rank runs it equally often.
  while (agreement_.maxOverRanks(wall_clock_.seconds() - start < settings_.warmup_time ? 1 : 0) ==
         1) {
    body();
    device_.synchronize();
  }
}

double Measurer::timerOverhead() {
  std::vector<double> empty;
  for (int i = 0; i < 10; ++i) {
    timer_->start();
    timer_->stop();
    device_.synchronize();
    empty.push_back(timer_->seconds());
  }
  return quantile(empty, 0.5);
}

int Measurer::autorange(const std::function<void()>& run, double target_seconds, Measurement& m) {
  int loops = 1;
  for (;;) {
    anchor();
    const Timed sample = timeOnce(run, loops, 0, m, span_kind::kUntimed, "autorange");
    const int wanted = nextLoopCount(loops, sample.device, target_seconds, kMaxLoops);
    // Every rank wants at least `loops`; the maximum equals it only when no rank wants more.
    const auto agreed = static_cast<int>(agreement_.maxOverRanks(wanted));
    if (agreed == loops) return loops;
    loops = agreed;
  }
}

// Named phases, as nvbench's measure_cold: cold start, warm-up, preparation of what is timed
// (graph capture, loops per sample), the timed samples, and the summary.
Measurement Measurer::measure(const std::function<void()>& body,
                              const std::function<void()>& after_sample) {
  Measurement m;
  m.clock = device_.clockName();
  flush_ = false;
  // Each phase's wall time, so that a report can say where a case's time went.
  double phase_start = wall_clock_.seconds();
  const auto phaseTime = [&] {
    const double now = wall_clock_.seconds();
    return now - std::exchange(phase_start, now);
  };
  coldStart(body, m);
  m.wall.cold_start = phaseTime();
  warmUp(body);
  m.wall.warm_up = phaseTime();
  Timing timing = prepare(body, m);
  m.wall.prepare = phaseTime();
  takeSamples(timing, after_sample, m);
  m.wall.sampling = phaseTime();
  summarize(timing, m);
  return m;
}

void Measurer::coldStart(const std::function<void()>& body, Measurement& m) {
  std::optional<Timeline::HostScope> scope;
  if (timeline_ != nullptr) scope.emplace(*timeline_, span_kind::kMeasure, "cold start");
  anchor();
  // Ranks of a collective meet before its first execution too: a rank that never arrives is
  // then found at a watched barrier, not inside a library call that may block the host.
  if (settings_.align_ranks) agreement_.barrier();
  const Timed cold = timeOnce(body, 1, 0, m, span_kind::kUntimed, "cold start");
  m.cold = cold.device;
  m.cold_host = cold.host;
}

Measurer::Timing Measurer::prepare(const std::function<void()>& body, Measurement& m) {
  std::optional<Timeline::HostScope> scope;
  if (timeline_ != nullptr) scope.emplace(*timeline_, span_kind::kMeasure, "prepare");
  Timing timing;
  timing.run = body;
  if (settings_.cuda_graph) {
    std::string why_not;
    timing.graph = device_.captureGraph(body, why_not);
    if (timing.graph) {
      GraphReplay* replay = timing.graph.get();
      timing.run = [replay] { replay->launch(); };
      timing.method.push_back("CUDA graph replays");
    } else {
      note(m, why_not + "; timed without a graph");
    }
  }
  m.timer_overhead = timerOverhead();
  if (settings_.l2_flush) {
    flush_ = true;
    m.loops = 1;
    timing.method.push_back("cache flushed before each sample");
  } else if (settings_.loops > 0) {
    m.loops = settings_.loops;
  } else {
    m.loops =
        autorange(timing.run, std::max(settings_.min_sample_time, 1000 * m.timer_overhead), m);
  }
  if (settings_.queued_start) {
    timing.queued = m.loops;
    if (m.loops > kMaxQueuedLoops) {
      note(m, "queued start off: " + std::to_string(m.loops) +
                  " executions per sample would overflow the launch queue");
      timing.queued = 0;
    }
  } else if (m.loops <= settings_.head_start_up_to) {
    timing.queued = 1;
  }
  if (timing.queued == m.loops) {
    timing.method.push_back("queued start");
  } else if (timing.queued > 0) {
    timing.method.push_back("head start");
  }
  return timing;
}

void Measurer::takeSamples(const Timing& timing, const std::function<void()>& after_sample,
                           Measurement& m) {
  std::optional<Timeline::HostScope> scope;
  if (timeline_ != nullptr) scope.emplace(*timeline_, span_kind::kMeasure, "samples");
  const std::string name = timeline_ != nullptr ? timeline_->caseLabel() : std::string();
  m.clock_at_start = device_.smClock();
  const double sampling_start = wall_clock_.seconds();
  double timed = 0;
  StopCheck mine;
  StopState decision = StopState::Continue;
  while (decision == StopState::Continue) {
    anchor();
    if (settings_.align_ranks) m.arrival_waits.push_back(agreement_.barrier());
    const Timed sample = timeOnce(timing.run, m.loops, timing.queued, m, span_kind::kSample, name);
    if (after_sample) after_sample();
    m.values.push_back(sample.device / m.loops);
    m.host_values.push_back(sample.host / m.loops);
    timed += sample.device;
    mine = evaluateStop(settings_, m.values, timed, wall_clock_.seconds() - sampling_start);
    decision = static_cast<StopState>(agreement_.maxOverRanks(static_cast<int>(mine.state)));
  }
  m.clock_at_end = device_.smClock();
  flush_ = false;
  // Every rank stops together; each names the rule that held for its own samples, unless some
  // rank's time ran out first, which then stopped them all: on every rank the limit that binds
  // (--max-time or the sweep's share, the same on all), with this rank's figure (evaluateStop
  // measured it already where this rank's own time ran out).
  if (decision == StopState::TimeLimit && mine.state != StopState::TimeLimit) {
    mine = stoppedOnTime(settings_, m.values);
  }
  m.stop_rule = mine.rule;
  m.stop_reason = stopReason(mine.rule, mine.figure);
  // Sample i of every rank is the same execution (a collective's, a step's), and the analyses
  // pair them by index; so every rank leaves out the longest transient any rank found.
  const auto transient =
      static_cast<std::size_t>(agreement_.maxOverRanks(static_cast<std::int64_t>(mine.transient)));
  if (transient > 0) leaveOutTransient(transient, m);
}

void Measurer::leaveOutTransient(std::size_t count, Measurement& m) {
  const auto head = [count](std::vector<double>& series) {
    if (series.size() >= count) series.erase(series.begin(), series.begin() + count);
  };
  const double before = quantile(std::span<const double>(m.values).first(count), 0.5);
  head(m.values);
  head(m.host_values);
  head(m.arrival_waits);
  note(m, fmt::format("the first {} samples, a start-up transient (their median {:+.1f}% from the "
                      "rest's), are left out",
                      count, (before / quantile(m.values, 0.5) - 1) * 100));
}

void Measurer::summarize(const Timing& timing, Measurement& m) const {
  m.noise = relativeNoise(m.values);
  m.noise_target_met = m.noise <= settings_.max_noise;
  m.method = timing.method.empty() ? "back-to-back" : timing.method.front();
  for (std::size_t i = 1; i < timing.method.size(); ++i) m.method += ", " + timing.method[i];
}

}  // namespace splitstep
