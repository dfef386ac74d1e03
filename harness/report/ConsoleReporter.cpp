#include "report/ConsoleReporter.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cases/CollectiveCase.hpp"
#include "common/Units.hpp"
#include "report/ConsoleDerived.hpp"
#include "report/ConsoleNcclTests.hpp"
#include "report/ConsoleSuiteTable.hpp"
#include "report/ConsoleText.hpp"
#include "report/ConsoleTimeit.hpp"
#include "report/RunHeader.hpp"

namespace splitstep {
namespace {

bool isCollective(const CaseResult& c) { return CollectiveCase::decode(c.fields).has_value(); }

}  // namespace

void ConsoleReporter::emit() {
  const std::string text = text_.str();
  text_.str("");
  if (style_.format == ConsoleFormat::Console) {
    out_ << text;
  } else {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      out_ << (line.empty() ? "#" : "# " + line) << '\n';
    }
  }
  out_.flush();
}

void ConsoleReporter::reportContext(const RunContext& context) {
  ranks_ = context.ranks;
  wall_ = context.wall;
  printRunHeader(text_, context, style_.verbose);
  emit();
}

void ConsoleReporter::reportCase(const CaseResult& result) {
  if (result.detail) return;  // results files hold it; a derived figure sums it up here
  if (!pending_.empty() && pending_.front().suite != result.suite) flushSuite();
  if (pending_.empty()) {
    // Compact tables follow each other without a blank line: their titles set them apart.
    text_ << fmt::format("{}{} [{}]\n", style_.verbose || !legend_shown_ ? "\n" : "", result.suite,
                         result.clock);
    method_shown_ = false;
  }
  pending_.push_back(result);
  // With --verbose, the case's own lines now, as %timeit prints each statement; the suite's
  // table at its end.
  if (style_.verbose) printCaseLines(result);
  emit();
}

void ConsoleReporter::printCaseLines(const CaseResult& result) {
  if (result.skipped()) {
    text_ << fmt::format("  {}: {}\n", result.case_name, fmt::join(result.notes, "; "));
  } else if (const RankResult* slow = result.slowest(); slow && result.part_of.empty()) {
    if (!method_shown_) {
      text_ << fmt::format("  per loop, on the slowest rank ({}):\n", slow->measurement.method);
      method_shown_ = true;
    }
    printTimeit(text_, result.case_name, *slow);
  }
}

void ConsoleReporter::reportDerived(const DerivedResult& derived) {
  flushSuite();
  if (derived.suite == kVerdictSuite) {
    verdicts_.push_back(derived.findings.empty() ? derived.subject + ": " + derived.title
                                                 : derived.findings.front());
    if (!style_.verbose) return;
  } else if (!style_.verbose && onlyVerbose(derived)) {
    left_out_.push_back(derived.subject + ": " + derived.title);
    return;
  }
  printDerived(text_, derived, style_.verbose);
  emit();
}

void ConsoleReporter::reportWallTimes(const RunWallTimes& wall) { wall_ = wall; }

void ConsoleReporter::finalize() {
  flushSuite();
  printEnd("");
}

void ConsoleReporter::endEarly(const std::string& reason) {
  flushSuite();
  printEnd(reason);
}

// Where the run's wall time went, why it ended early, what only --verbose shows, and the
// verdict last.
void ConsoleReporter::printEnd(const std::string& early) {
  std::vector<std::string> parts = {"start-up " + formatSeconds(wall_.start_up)};
  for (const auto& [suite, seconds] : wall_.suites) {
    parts.push_back(suite + " " + formatSeconds(seconds));
  }
  if (wall_.gather > 0) parts.push_back("collecting results " + formatSeconds(wall_.gather));
  text_ << '\n';
  printWarnings(text_, warnings_);
  printWrapped(text_, fmt::format("wall time: {}", fmt::join(parts, ", ")));
  if (!early.empty()) text_ << fmt::format("\nThe run ended early: {}\n", early);
  if (!left_out_.empty()) {
    const std::string head = "--verbose adds %timeit lines, per-rank figures, ";
    text_ << head << namesWithin(left_out_, kConsoleWidth - head.size()) << '\n';
  }
  for (const std::string& verdict : verdicts_) printWrapped(text_, verdict, 2);
  emit();
}

void ConsoleReporter::flushSuite() {
  if (pending_.empty()) return;
  if (style_.format == ConsoleFormat::NcclTests &&
      std::any_of(pending_.begin(), pending_.end(), isCollective)) {
    emit();
    printNcclTestsTable(out_, pending_);
  } else {
    printSuiteTable(text_, pending_, ranks_, style_.verbose);
    // The columns are the same in every compact table: explained once.
    if (!style_.verbose && !legend_shown_) text_ << kCompactLegend << '\n';
    legend_shown_ = true;
  }
  if (!style_.verbose) noteWarnings(pending_, warnings_);
  emit();
  pending_.clear();
}

}  // namespace splitstep
