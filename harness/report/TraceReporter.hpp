// --trace FILE: every rank's timeline as a Chrome trace (report/ChromeTrace), written once the
// timelines are in: every rank's after the suites, or rank 0's alone when the run ends early.
#pragma once

#include <string>
#include <vector>

#include "report/Reporter.hpp"

namespace splitstep {

class TraceReporter final : public Reporter {
 public:
  explicit TraceReporter(std::string path) : path_(std::move(path)) {}
  void reportContext(const RunContext& context) override;
  void reportCase(const CaseResult&) override {}
  // Writes the trace; the first timelines.size() ranks' (rank 0's alone on an early end).
  void reportTimelines(const std::vector<RankTimeline>& timelines) override;
  void finalize() override {}
  void endEarly(const std::string&) override {}
  std::string written() const override { return written_; }

 private:
  std::string path_;
  std::vector<RankInfo> ranks_;
  std::string command_line_;
  std::string written_;
};

}  // namespace splitstep
