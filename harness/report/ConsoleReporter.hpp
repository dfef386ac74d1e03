// The terminal report, as the run goes: each case's %timeit lines as soon as it is measured;
// at the end of each suite a table with the across-rank spread and the slowest rank named, the
// parts of a whole (phases of a step) indented under it with their share; then derived figures
// and where the run's wall time went.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "report/Reporter.hpp"

namespace splitstep {

class ConsoleReporter final : public Reporter {
 public:
  // Per-rank medians are listed inline up to this many ranks; beyond, the JSON has them.
  static constexpr std::size_t kMaxRanksInline = 8;

  explicit ConsoleReporter(std::ostream& out) : out_(out) {}
  void reportContext(const RunContext& context) override;
  void reportCase(const CaseResult& result) override;
  // Printed at once, after the tables of every case reported before it.
  void reportDerived(const DerivedResult& derived) override;
  // Printed at the end, after the derived figures.
  void reportWallTimes(const RunWallTimes& wall) override;
  void finalize() override;
  // Prints the table of the suite in progress, the wall times so far and the reason.
  void endEarly(const std::string& reason) override;

 private:
  void flushSuite();
  void printWallTimes();

  std::ostream& out_;
  std::vector<RankInfo> ranks_;
  RunWallTimes wall_;
  std::vector<CaseResult> pending_;  // the cases of the suite being reported
  bool method_shown_ = false;        // the suite's timing method was printed
};

}  // namespace splitstep
