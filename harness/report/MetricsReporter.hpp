// --metrics FILE: the verdict (derived/Verdict) in the Prometheus text format, as node-exporter's
// textfile collector reads it, so that a cluster's monitoring can scrape every node's verdict
// (docs/verdict.md). Rewritten (atomically) with every batch of cases' verdict, with
// splitstep_run_complete 0 until the run's last case is in.
#pragma once

#include <string>
#include <vector>

#include "derived/Verdict.hpp"
#include "report/Reporter.hpp"

namespace splitstep {

// The file's first line starts with it: how a file splitstep wrote is told from any other.
inline constexpr const char* kMetricsSchema = "# splitstep.metrics/1";

// The file's text for `verdicts`: each metric's # HELP and # TYPE, then its samples.
std::string metricsText(const std::vector<NodeVerdict>& verdicts, bool complete);

class MetricsReporter final : public Reporter {
 public:
  explicit MetricsReporter(std::string path) : path_(std::move(path)) {}
  void reportContext(const RunContext&) override {}
  void reportCase(const CaseResult&) override {}
  // The verdict typed, as judged, not read back from its text; written at once.
  void reportVerdict(const std::vector<NodeVerdict>& verdicts) override;
  void finalize() override { write(true); }
  void endEarly(const std::string&) override { write(false); }

 private:
  void write(bool complete) const;

  std::string path_;
  std::vector<NodeVerdict> verdicts_;
};

}  // namespace splitstep
