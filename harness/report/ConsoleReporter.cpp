#include "report/ConsoleReporter.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstddef>
#include <optional>

#include "cases/CollectiveCase.hpp"
#include "common/Units.hpp"
#include "derived/NodeSpread.hpp"
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
  if (!heldBack(result)) flushHeldBack();
  if (pending_.empty() && !heldBack(result)) {
    // Compact tables follow each other without a blank line: their titles set them apart.
    text_ << fmt::format("{}{} [{}]\n", style_.verbose || !legend_shown_ ? "\n" : "", result.suite,
                         result.clock);
    method_shown_ = false;
  }
  if (isCollective(result)) collective_suites_.insert(result.suite);
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
  flushHeldBack();
  if (derived.suite == kVerdictSuite) {
    // The line, then what it could not judge and why (beside it where both fit a line): a node
    // check reads both.
    if (derived.findings.empty()) verdicts_.push_back(derived.subject + ": " + derived.title);
    for (std::size_t i = 0; i < derived.findings.size(); ++i) {
      const std::string& finding = derived.findings[i];
      if (i > 0 && verdicts_.back().size() + 2 + finding.size() <= kConsoleWidth) {
        verdicts_.back() += "; " + finding;
      } else {
        verdicts_.push_back((i == 0 ? "" : "  ") + finding);
      }
    }
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
  flushHeldBack();
  printEnd("");
}

void ConsoleReporter::endEarly(const std::string& reason) {
  flushSuite();
  flushHeldBack();
  printEnd(reason);
}

// Where the run's wall time went, why it ended early, what only --verbose shows, and the
// verdict last.
void ConsoleReporter::printEnd(const std::string& early) {
  std::vector<std::string> parts = {"start-up " + formatSeconds(wall_.start_up)};
  // Several collectives are one entry, where the first of them ran: a line, not three.
  std::optional<std::size_t> collective_part;
  double collectives = 0;
  for (const auto& [suite, seconds] : wall_.suites) {
    if (collective_suites_.size() > 1 && collective_suites_.contains(suite)) {
      if (!collective_part) collective_part = parts.size();
      collectives += seconds;
    } else {
      parts.push_back(suite + " " + formatSeconds(seconds));
    }
  }
  if (collective_part) {
    parts.insert(
        parts.begin() + static_cast<std::ptrdiff_t>(*collective_part),
        fmt::format("{} collectives {}", collective_suites_.size(), formatSeconds(collectives)));
  }
  if (wall_.gather > 0) parts.push_back("gather " + formatSeconds(wall_.gather));
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

bool ConsoleReporter::heldBack(const CaseResult& result) const {
  return !style_.verbose && style_.format == ConsoleFormat::Console && isCollective(result);
}

void ConsoleReporter::flushSuite() {
  if (pending_.empty()) return;
  if (heldBack(pending_.front())) {
    noteWarnings(pending_, warnings_);
    held_back_.push_back(std::move(pending_));
  } else if (style_.format == ConsoleFormat::NcclTests &&
             std::any_of(pending_.begin(), pending_.end(), isCollective)) {
    emit();
    printNcclTestsTable(out_, pending_);
    if (!style_.verbose) noteWarnings(pending_, warnings_);
  } else {
    printSuite(pending_);
  }
  emit();
  pending_.clear();
}

void ConsoleReporter::printSuite(const std::vector<CaseResult>& cases) {
  printSuiteTable(text_, cases, ranks_, style_.verbose);
  // The columns are the same in every compact table: explained once.
  if (!style_.verbose && !legend_shown_) text_ << compactLegend(ranks_.size()) << '\n';
  legend_shown_ = true;
  if (!style_.verbose) noteWarnings(cases, warnings_);
}

void ConsoleReporter::flushHeldBack() {
  if (held_back_.empty()) return;
  // Several collectives: on one rank their times in a few lines; on more ranks of one node, one
  // table where their sizes are few. Else a table each: one collective asked for alone, many
  // sizes, or several nodes, where each case's slowest rank names its node.
  const bool several = held_back_.size() > 1;
  if (several && ranks_.size() == 1) {
    text_ << (legend_shown_ ? "" : "\n");
    printCollectivesOnOneRank(text_, held_back_);
  } else if (std::ostringstream matrix; several && nodeCount(ranks_) == 1 &&
                                        printCollectiveMatrix(matrix, held_back_, ranks_.size())) {
    text_ << (legend_shown_ ? "" : "\n") << matrix.str();
  } else {
    for (const std::vector<CaseResult>& suite : held_back_) {
      const CaseResult& first = suite.front();
      text_ << fmt::format("{}{} [{}]\n", legend_shown_ ? "" : "\n", first.suite, first.clock);
      printSuiteTable(text_, suite, ranks_, false);
      if (!legend_shown_) text_ << compactLegend(ranks_.size()) << '\n';
      legend_shown_ = true;
    }
  }
  held_back_.clear();
  emit();
}

}  // namespace splitstep
