#include "report/MarkdownReporter.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/AtomicFile.hpp"
#include "report/ConsoleText.hpp"

namespace splitstep {
namespace {

// A table cell: a '|' would end it, a line break the row.
std::string cell(const std::string& text) {
  std::string escaped;
  for (const char c : text) {
    if (c == '|')
      escaped += "\\|";
    else if (c == '\n')
      escaped += ' ';
    else
      escaped += c;
  }
  return escaped;
}

std::string row(const CaseResult& c) {
  const std::string name = cell(c.case_name);
  const std::string series = cell(c.series);
  const RankResult* slowest = c.slowest();
  if (slowest == nullptr)
    return fmt::format("| {} | {} | {} | - | skipped | | | |", cell(c.suite), name, series);
  std::vector<std::string> rates;
  for (const RateValue& rate : c.rates) {
    rates.push_back(cell(fmt::format("{}: {}", rate.name, formatRate(rate.value))));
  }
  return fmt::format(
      "| {} | {} | {} | {} (r{}) | {} | {} – {} | {:.2f}% | {} |", cell(c.suite), name, series,
      c.ranks.size(), slowest->rank, formatFigure(c.unit, slowest->summary.median),
      formatFigure(c.unit, slowest->median_ci.low), formatFigure(c.unit, slowest->median_ci.high),
      100 * slowest->summary.cv, fmt::join(rates, ", "));
}

}  // namespace

void MarkdownReporter::reportContext(const RunContext& context) {
  heading_ = fmt::format("# splitstep on {} rank{}\n\n`{}`\n", context.ranks.size(),
                         context.ranks.size() == 1 ? "" : "s", cell(context.command_line));
  write();
}

void MarkdownReporter::reportCase(const CaseResult& result) {
  if (result.detail) return;
  rows_.push_back(row(result));
  write();
}

void MarkdownReporter::finalize() {
  ended_ = "completed";
  write();
}

void MarkdownReporter::endEarly(const std::string& reason) {
  ended_ = fmt::format("ended early: {}", cell(reason));
  write();
}

std::string MarkdownReporter::written() const {
  return ended_.empty() ? std::string() : fmt::format("table written to {}\n", path_);
}

void MarkdownReporter::write() const {
  std::string text = fmt::format("{}\n{}\n", kMarkdownSchema, heading_);
  text +=
      "| suite | case | series | ranks (slowest) | median | 95% interval of the median | cv | "
      "rates |\n|---|---|---|---|--:|---|--:|---|\n";
  for (const std::string& line : rows_) text += line + '\n';
  text += fmt::format("\n{} case{}; {}\n", rows_.size(), rows_.size() == 1 ? "" : "s",
                      ended_.empty() ? "running" : ended_);
  writeFileAtomically(path_, text);
}

}  // namespace splitstep
