#include "report/StreamingReport.hpp"

#include <fmt/format.h>

#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#include "cluster/MpiWait.hpp"
#include "collect/Collector.hpp"
#include "collect/SampleCodec.hpp"

namespace splitstep {

void StreamingReport::publish(std::vector<Sample> samples) {
  watchdog_.setOperation(fmt::format("gathering the results of {} {}", samples.front().suite,
                                     samples.front().case_name));
  const std::vector<std::string> payloads =
      gatherToRoot(encodeSamples(samples), cluster_.comm(), watchdog_);
  if (reporters_ != nullptr) {
    std::vector<std::vector<Sample>> by_rank;
    for (const std::string& payload : payloads) by_rank.push_back(decodeSamples(payload));
    const std::vector<CaseResult> results = summarizer_.add(by_rank);
    results_.insert(results_.end(), results.begin(), results.end());
    verdicts_ = judgeNodes(results_, ranks_);
    const std::lock_guard lock(ending_.reportMutex());
    if (progress_ != nullptr) progress_->clear();
    reporters_->reportVerdict(verdicts_);
    for (const CaseResult& result : results) reporters_->reportCase(result);
  }
  ++batches_;
  leaveIfWarned();
  stallIfAsked();
}

void StreamingReport::startReports(std::vector<RankInfo> ranks) {
  ranks_ = std::move(ranks);
  verdicts_ = judgeNodes({}, ranks_);
  reporters_->reportVerdict(verdicts_);
}

void StreamingReport::leaveIfWarned() {
  // Slurm's early warning may reach the ranks a moment apart: they agree after each batch, so
  // that every rank leaves after the same one, with no collective in flight.
  int mine = ending_.warned() ? 1 : 0;
  int any = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Iallreduce(&mine, &any, 1, MPI_INT, MPI_MAX, cluster_.comm(), &request) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Iallreduce (the early warning) failed");
  }
  waitForRequest(watchdog_, request, "the other ranks to agree on the early warning");
  if (any != 0) throw EarlyWarning();
}

void StreamingReport::stallIfAsked() const {
  if (launch_.stall_rank != cluster_.rank() || batches_ < launch_.stall_after) return;
  for (;;) std::this_thread::sleep_for(std::chrono::hours(24));
}

}  // namespace splitstep
