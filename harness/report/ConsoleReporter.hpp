// The terminal report, as the run goes. Compact by default: the run's header, then at the end of
// each suite one line per case (report/ConsoleSuiteTable), the derived figures as short tables
// (report/ConsoleDerived), where the run's wall time went, and a verdict last. --verbose adds
// each case's %timeit lines as it is measured, the per-rank figures and the models' projections;
// --format nccl-tests prints the collectives in nccl-tests' table and everything else as its
// comment lines ('#'), so that nccl-tests' readers take the output as nccl-tests' own.
#pragma once

#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "options/RunPlan.hpp"
#include "report/ConsoleSuiteTable.hpp"
#include "report/Reporter.hpp"

namespace splitstep {

struct ConsoleStyle {
  bool verbose = false;
  ConsoleFormat format = ConsoleFormat::Console;
};

class ConsoleReporter final : public Reporter {
 public:
  // The suite whose derived result closes the report in one line (its first finding).
  static constexpr std::string_view kVerdictSuite = "verdict";

  explicit ConsoleReporter(std::ostream& out, ConsoleStyle style = {}) : out_(out), style_(style) {}
  void reportContext(const RunContext& context) override;
  void reportCase(const CaseResult& result) override;
  // Printed at once, after the tables of every case reported before it; a verdict at the end.
  void reportDerived(const DerivedResult& derived) override;
  // Printed at the end, after the derived figures.
  void reportWallTimes(const RunWallTimes& wall) override;
  void finalize() override;
  // Prints the table of the suite in progress, the wall times so far and the reason.
  void endEarly(const std::string& reason) override;

 private:
  void printCaseLines(const CaseResult& result);
  void flushSuite();
  // Whether `result`'s suite is held back until the collectives end: a collective's, in the
  // compact console, where several are summed up together.
  bool heldBack(const CaseResult& result) const;
  // Prints the held-back collective suites: on one rank in a few lines
  // (printCollectivesOnOneRank), on more ranks of one node in one table
  // (printCollectiveMatrix); a table each where one ran alone, their sizes are many or the run
  // spans several nodes.
  void flushHeldBack();
  void printSuite(const std::vector<CaseResult>& cases);
  // `early`: why the run ended before its last case; empty when it did not.
  void printEnd(const std::string& early);
  // Writes what `text_` holds: as it is, or as nccl-tests' comment lines.
  void emit();

  std::ostream& out_;
  ConsoleStyle style_;
  std::ostringstream text_;
  std::vector<RankInfo> ranks_;
  RunWallTimes wall_;
  std::vector<CaseResult> pending_;                 // the cases of the suite being reported
  std::vector<std::vector<CaseResult>> held_back_;  // heldBack suites, each's cases
  std::set<std::string> collective_suites_;         // the run's, for the wall-time line
  bool method_shown_ = false;                       // the suite's timing method was printed
  bool legend_shown_ = false;                       // the compact tables' legend was printed
  CaseWarnings warnings_;                           // compact: printed together at the end
  std::vector<std::string> left_out_;               // titles of the results only --verbose prints
  std::vector<std::string> verdicts_;
};

}  // namespace splitstep
