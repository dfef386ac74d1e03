// Gathers each batch of finished cases from every rank to rank 0 as a suite publishes it; rank 0
// summarises the batch with the earlier ones and hands its cases to the reporters at once.
#pragma once

#include <vector>

#include "cluster/Cluster.hpp"
#include "collect/CaseSink.hpp"
#include "common/Progress.hpp"
#include "common/Watchdog.hpp"
#include "derived/CaseResult.hpp"
#include "derived/Verdict.hpp"
#include "fault/RunEnding.hpp"
#include "meta/RankInfo.hpp"
#include "options/RunPlan.hpp"
#include "report/Reporter.hpp"

namespace splitstep {

class StreamingReport final : public CaseSink {
 public:
  // `reporters`: rank 0's; nullptr on the other ranks.
  StreamingReport(const Cluster& cluster, Watchdog& watchdog, RunEnding& ending,
                  Reporter* reporters, const LaunchPlan& launch)
      : cluster_(cluster),
        watchdog_(watchdog),
        ending_(ending),
        reporters_(reporters),
        launch_(launch) {}

  // Rank 0's progress line, erased before a case is printed; nullptr: none is shown.
  void setProgress(Progress* progress) { progress_ = progress; }

  void publish(std::vector<Sample> samples) override;

  // --test-stall-rank: this rank stops answering anything, for good, once --test-stall-after
  // batches were gathered (what a hung rank does, for the tests of the fault handling).
  void stallIfAsked() const;

  // Throws EarlyWarning once any rank received Slurm's early warning: every rank, after the
  // same batch.
  void leaveIfWarned();

  // Rank 0, once the reporters have the run's context: the ranks each node's verdict is judged
  // over, and the verdict before any case (every item not judged yet). From then on each batch's
  // verdict is judged once, on every case so far, and reported before the batch's cases, which
  // the files then write with it.
  void startReports(std::vector<RankInfo> ranks);
  // Rank 0: every case so far, for the figures derived from several.
  const std::vector<CaseResult>& results() const { return results_; }
  // Rank 0: each node's verdict on results().
  const std::vector<NodeVerdict>& verdicts() const { return verdicts_; }

 private:
  const Cluster& cluster_;
  Watchdog& watchdog_;
  RunEnding& ending_;
  Reporter* reporters_;
  const LaunchPlan& launch_;
  Progress* progress_ = nullptr;
  CaseSummarizer summarizer_;
  std::vector<CaseResult> results_;
  std::vector<RankInfo> ranks_;
  std::vector<NodeVerdict> verdicts_;
  int batches_ = 0;
};

}  // namespace splitstep
