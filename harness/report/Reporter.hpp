// Output writers: they read RunContext, CaseResults, the nodes' verdicts and DerivedResults, and
// know nothing of the suites; they run no analysis (each runs once, at its place, and hands its
// results to all of them). Cases come one by one as they are measured, each batch after its
// verdict, then the figures derived from them, then finalize(); or, when the run ends early,
// endEarly() after the cases measured so far. A writer of files keeps them current after every
// case, so that a run killed outright leaves them too.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collect/TimelineCodec.hpp"
#include "derived/CaseResult.hpp"
#include "derived/Derived.hpp"
#include "derived/Verdict.hpp"
#include "meta/RunContext.hpp"

namespace splitstep {

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void reportContext(const RunContext& context) = 0;
  virtual void reportCase(const CaseResult& result) = 0;
  // The calls below carry what only some outputs show: one that shows none of it leaves them.
  virtual void reportDerived(const DerivedResult& /*derived*/) {}
  // Each node's verdict on the cases so far, judged once for all reporters after each batch of
  // cases (the last batch's is the run's).
  virtual void reportVerdict(const std::vector<NodeVerdict>& /*verdicts*/) {}
  // Where rank 0's run went so far (RunContext::wall), after each suite and once more when the
  // last one ended: reportContext() comes before any of it is known.
  virtual void reportWallTimes(const RunWallTimes& /*wall*/) {}
  // Every rank's timeline on rank 0's clock once the suites ended, before finalize(); or rank
  // 0's alone, before endEarly(), when the run ends early on the thread that records them. Only
  // an output that asks for timelines (OutputInfo::needs_timelines) reads them.
  virtual void reportTimelines(const std::vector<RankTimeline>& /*timelines*/) {}
  virtual void finalize() = 0;
  // The run ended before its last case: `reason` says why (a timeout naming the rank that did
  // not arrive, a failure, a signal). Ends the output with what it has.
  virtual void endEarly(const std::string& reason) = 0;
  // What the console says once the output is written, each line ending in a newline ("results
  // written to out.json"); empty where there is no file or nothing was written yet.
  virtual std::string written() const { return {}; }
};

// Forwards every call to each reporter it holds, in the order they were added.
class ReporterMultiplex final : public Reporter {
 public:
  void add(std::unique_ptr<Reporter> reporter) { reporters_.push_back(std::move(reporter)); }
  void reportContext(const RunContext& context) override {
    for (auto& r : reporters_) r->reportContext(context);
  }
  void reportCase(const CaseResult& result) override {
    for (auto& r : reporters_) r->reportCase(result);
  }
  void reportDerived(const DerivedResult& derived) override {
    for (auto& r : reporters_) r->reportDerived(derived);
  }
  void reportVerdict(const std::vector<NodeVerdict>& verdicts) override {
    for (auto& r : reporters_) r->reportVerdict(verdicts);
  }
  void reportWallTimes(const RunWallTimes& wall) override {
    for (auto& r : reporters_) r->reportWallTimes(wall);
  }
  void reportTimelines(const std::vector<RankTimeline>& timelines) override {
    for (auto& r : reporters_) r->reportTimelines(timelines);
  }
  void finalize() override {
    for (auto& r : reporters_) r->finalize();
  }
  void endEarly(const std::string& reason) override {
    for (auto& r : reporters_) r->endEarly(reason);
  }
  std::string written() const override {
    std::string lines;
    for (const auto& r : reporters_) lines += r->written();
    return lines;
  }

 private:
  std::vector<std::unique_ptr<Reporter>> reporters_;
};

}  // namespace splitstep
