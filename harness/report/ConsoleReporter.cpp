#include "report/ConsoleReporter.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include "analysis/NodeSpread.hpp"
#include "common/Units.hpp"
#include "report/RunHeader.hpp"
#include "stats/MedianInterval.hpp"

namespace splitstep {
namespace {

std::string formatRate(double value) { return fmt::format("{:.{}f}", value, value >= 10 ? 1 : 2); }

// "0-3,6": ascending ranks, runs of consecutive ones as ranges.
std::string rankRanges(const std::vector<int>& ranks) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    parts.push_back(j == i ? std::to_string(ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]));
    i = j + 1;
  }
  return fmt::format("{}", fmt::join(parts, ","));
}

// Left-aligned first and last columns, right-aligned numbers, two spaces between columns.
void printTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const bool left = c == 0 || c + 1 == row.size();
      line += "  " + (left ? fmt::format("{:<{}}", row[c], widths[c])
                           : fmt::format("{:>{}}", row[c], widths[c]));
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << '\n';
  }
}

// The largest noise (std/mean) over ranks: the workload's spread.
std::string noiseCell(const CaseResult& c) {
  double noise = 0;
  for (const RankResult& r : c.ranks) noise = std::max(noise, r.measurement.noise);
  return fmt::format("{:.2f}%", noise * 100);
}

// The largest uncertainty of a rank's median over ranks: how far its 95% interval reaches from
// it. "-" where a rank had too few samples for a 95% interval.
std::string uncertaintyCell(const CaseResult& c) {
  double reach = 0;
  for (const RankResult& r : c.ranks) {
    if (r.median_ci.coverage < kMedianConfidence) return "-";
    reach = std::max(reach, relativeReach(r.median_ci, r.summary.median));
  }
  return fmt::format("{:.2f}%", reach * 100);
}

// The rules that ended sampling, each once: ranks stop together, each on its own rule.
std::string stopCell(const CaseResult& c) {
  std::vector<std::string_view> rules;
  for (const RankResult& r : c.ranks) {
    const std::string_view rule = toString(r.measurement.stop_rule);
    if (std::find(rules.begin(), rules.end(), rule) == rules.end()) rules.push_back(rule);
  }
  return fmt::format("{}", fmt::join(rules, "/"));
}

// %timeit's two lines for one rank, and a third: why sampling stopped and where the case's
// time went. Printed as each case comes, so aligned under its own label.
void printTimeit(std::ostream& out, const std::string& label, const RankResult& r) {
  const Summary& s = r.summary;
  const Measurement& m = r.measurement;
  const PhaseWallTimes& w = m.wall;
  const std::size_t indent = label.size();
  // The interval's coverage is at least the confidence asked for, unless there were too few
  // samples: then it is said as it is.
  const double coverage =
      r.median_ci.coverage >= kMedianConfidence ? kMedianConfidence : r.median_ci.coverage;
  out << fmt::format("  {}  {} ± {} per loop (mean ± std. dev. of {} runs, {} loop{} each)\n",
                     label, formatSeconds(s.mean), formatSeconds(s.stddev), s.n, m.loops,
                     m.loops == 1 ? "" : "s");
  const std::string host =
      r.host_summary ? fmt::format("; host {} per loop", formatSeconds(r.host_summary->median))
                     : "";
  out << fmt::format("  {:<{}}  median {} ({:.0f}% CI {} to {}), IQR {}, min {}; cold start {}{}\n",
                     "", indent, formatSeconds(s.median), coverage * 100,
                     formatSeconds(r.median_ci.low), formatSeconds(r.median_ci.high),
                     formatSeconds(s.iqr), formatSeconds(s.min), formatSeconds(m.cold), host);
  out << fmt::format(
      "  {:<{}}  stopped: {}; wall {}: cold start {}, warm-up {}, prepare {}, samples {}\n", "",
      indent, m.stop_reason, formatSeconds(w.cold_start + w.warm_up + w.prepare + w.sampling),
      formatSeconds(w.cold_start), formatSeconds(w.warm_up), formatSeconds(w.prepare),
      formatSeconds(w.sampling));
}

// A part's name where it stands without its whole above it: "mlp bf16 overlap forward".
std::string fullName(const CaseResult& c) {
  return c.part_of.empty() ? c.case_name : c.case_name + " " + c.series;
}

bool isPartOf(const CaseResult& part, const CaseResult& whole) {
  return &part != &whole && !part.part_of.empty() && part.case_name == whole.case_name &&
         part.suite == whole.suite && part.part_of == whole.series;
}

struct TableEntry {
  const CaseResult* result;
  std::size_t depth;  // 0: a row of its own; 1: a part indented under its whole, ...
};

void appendWithParts(const std::vector<CaseResult>& cases, const CaseResult& c, std::size_t depth,
                     std::vector<TableEntry>& order) {
  order.push_back({&c, depth});
  // Under a skipped whole (no row) the parts stand on their own.
  const std::size_t part_depth = c.skipped() ? depth : depth + 1;
  for (const CaseResult& part : cases) {
    if (isPartOf(part, c)) appendWithParts(cases, part, part_depth, order);
  }
}

// Each whole in the order reported, followed by its parts; a part whose whole is not in the
// table keeps its place.
std::vector<TableEntry> tableOrder(const std::vector<CaseResult>& cases) {
  std::vector<TableEntry> order;
  for (const CaseResult& c : cases) {
    const bool has_whole = std::any_of(
        cases.begin(), cases.end(), [&c](const CaseResult& whole) { return isPartOf(c, whole); });
    if (!has_whole) appendWithParts(cases, c, 0, order);
  }
  return order;
}

std::string rowLabel(const TableEntry& entry) {
  return entry.depth == 0 ? fullName(*entry.result)
                          : std::string(2 * entry.depth, ' ') + entry.result->series;
}

// Each whole case's per-rank medians by node, for a run on more than one node.
void printByNode(std::ostream& out, const std::vector<CaseResult>& cases,
                 const std::vector<RankInfo>& ranks) {
  std::vector<std::vector<std::string>> rows = {
      {"case", "node", "ranks", "min", "median", "max", ""}};
  for (const CaseResult& c : cases) {
    if (c.skipped() || !c.part_of.empty()) continue;
    std::string label = c.case_name;
    for (const NodeSpread& node : spreadByNode(c, ranks)) {
      rows.push_back({std::exchange(label, ""), node.host, rankRanges(node.ranks),
                      formatSeconds(node.across.min), formatSeconds(node.across.median),
                      formatSeconds(node.across.max), node.slowest ? "slowest node" : ""});
    }
  }
  out << "  by node: min / median / max of the medians of each node's ranks\n";
  printTable(out, rows);
}

std::string formatFigure(const std::string& unit, double value) {
  if (unit == "s") return formatSeconds(value);
  if (unit == "%") return fmt::format("{:.1f}%", value);
  if (unit == "rank") return fmt::format("r{}", static_cast<long long>(value));
  if (unit == "B") return formatBytes(static_cast<std::uint64_t>(value));
  return formatRate(value) + " " + unit;
}

}  // namespace

void ConsoleReporter::reportContext(const RunContext& context) {
  ranks_ = context.ranks;
  wall_ = context.wall;
  printRunHeader(out_, context);
}

void ConsoleReporter::reportCase(const CaseResult& result) {
  if (result.detail) return;  // results files hold it; a derived figure sums it up here
  if (!pending_.empty() && pending_.front().suite != result.suite) flushSuite();
  if (pending_.empty()) {
    out_ << fmt::format("\n{} [{}]\n", result.suite, result.clock);
    method_shown_ = false;
  }
  // The case's own lines now, as %timeit prints each statement; the suite's table at its end.
  if (result.skipped()) {
    out_ << fmt::format("  {}: {}\n", fullName(result), fmt::join(result.notes, "; "));
  } else if (const RankResult* slow = result.slowest(); slow && result.part_of.empty()) {
    if (!method_shown_) {
      out_ << fmt::format("  per loop, on the slowest rank ({}):\n", slow->measurement.method);
      method_shown_ = true;
    }
    printTimeit(out_, result.case_name, *slow);
  }
  out_.flush();
  pending_.push_back(result);
}

void ConsoleReporter::reportDerived(const DerivedResult& derived) {
  flushSuite();
  out_ << fmt::format("\n{} {}: {}\n", derived.suite, derived.subject, derived.title);
  std::vector<std::vector<std::string>> rows;
  for (const DerivedFigure& figure : derived.figures) {
    if (figure.detail) continue;
    std::vector<std::string> details;
    if (figure.per_rank.size() <= kMaxRanksInline) {
      for (const auto& [rank, value] : figure.per_rank) {
        details.push_back(fmt::format("r{} {}", rank, formatFigure(figure.unit, value)));
      }
    }
    if (figure.interval) {
      details.insert(details.begin(),
                     fmt::format("[{}, {}]", formatFigure(figure.unit, figure.interval->first),
                                 formatFigure(figure.unit, figure.interval->second)));
    }
    if (!figure.note.empty()) details.push_back(figure.note);
    rows.push_back({figure.name, formatFigure(figure.unit, figure.value),
                    fmt::format("{}", fmt::join(details, "  "))});
  }
  printTable(out_, rows);
  for (const std::string& note : derived.notes) out_ << "  " << note << '\n';
  if (!derived.assumptions.empty()) out_ << "  assumes:\n";
  for (const std::string& assumption : derived.assumptions) out_ << "    " << assumption << '\n';
  if (!derived.findings.empty()) out_ << "  diagnosis:\n";
  for (const std::string& finding : derived.findings) out_ << "    " << finding << '\n';
}

void ConsoleReporter::reportWallTimes(const RunWallTimes& wall) { wall_ = wall; }

void ConsoleReporter::finalize() {
  flushSuite();
  printWallTimes();
  out_.flush();
}

void ConsoleReporter::endEarly(const std::string& reason) {
  flushSuite();
  printWallTimes();
  out_ << fmt::format("\nThe run ended early: {}\n", reason);
  out_.flush();
}

void ConsoleReporter::printWallTimes() {
  std::vector<std::string> parts = {"start-up " + formatSeconds(wall_.start_up)};
  for (const auto& [suite, seconds] : wall_.suites) {
    parts.push_back(suite + " " + formatSeconds(seconds));
  }
  if (wall_.gather > 0) parts.push_back("gather " + formatSeconds(wall_.gather));
  out_ << fmt::format("\nwall time: {}\n", fmt::join(parts, ", "));
}

void ConsoleReporter::flushSuite() {
  if (pending_.empty()) return;
  std::vector<std::string> rate_names;
  std::string baseline;
  bool any_checks = false;
  bool any_skew = false;
  bool any_parts = false;
  std::set<std::string> clocks;
  for (const CaseResult& c : pending_) {
    any_skew = any_skew || c.arrival_skew.has_value();
    any_parts = any_parts || (!c.part_of.empty() && !c.skipped());
    if (!c.skipped()) clocks.insert(c.clock);
    for (const RateValue& rate : c.rates) {
      if (std::find(rate_names.begin(), rate_names.end(), rate.name) == rate_names.end()) {
        rate_names.push_back(rate.name);
      }
    }
    if (c.speedup) baseline = c.speedup_baseline;
    any_checks = any_checks || c.checked > 0;
  }
  const bool inline_ranks = ranks_.size() <= kMaxRanksInline;

  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"case", "min", "median", "max"};
  if (any_parts) header.push_back("share");
  header.push_back("slowest");
  header.insert(header.end(), rate_names.begin(), rate_names.end());
  if (!baseline.empty()) header.push_back("vs " + baseline);
  if (any_checks) header.push_back("check");
  if (any_skew) header.push_back("skew");
  const bool mixed_clocks = clocks.size() > 1;
  if (mixed_clocks) header.push_back("clock");
  header.push_back("noise");
  header.push_back("±ci");
  header.push_back("stop");
  header.push_back(inline_ranks ? "per-rank median" : "");
  rows.push_back(header);

  // Each distinct note once, with the cases it applies to.
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;
  std::vector<std::string> warnings;
  for (const TableEntry& entry : tableOrder(pending_)) {
    const CaseResult& c = *entry.result;
    for (const std::string& note : c.notes) {
      auto it = std::find_if(notes.begin(), notes.end(),
                             [&note](const auto& known) { return known.first == note; });
      if (it == notes.end()) it = notes.insert(notes.end(), {note, {}});
      // The parts of a case share its notes: the case is named once.
      if (std::find(it->second.begin(), it->second.end(), c.case_name) == it->second.end()) {
        it->second.push_back(c.case_name);
      }
    }
    if (c.skipped()) continue;
    const RankInfo& slow = ranks_.at(static_cast<std::size_t>(c.slowest_rank));
    std::vector<std::string> row = {rowLabel(entry), formatSeconds(c.across.min),
                                    formatSeconds(c.across.median), formatSeconds(c.across.max)};
    if (any_parts) row.push_back(c.share ? fmt::format("{:.1f}%", *c.share * 100) : "-");
    row.push_back(fmt::format("r{} {} {}", slow.rank, slow.host, slow.device));
    for (const std::string& name : rate_names) {
      const auto rate = std::find_if(c.rates.begin(), c.rates.end(),
                                     [&name](const RateValue& r) { return r.name == name; });
      row.push_back(rate == c.rates.end() ? "-" : formatRate(rate->value));
    }
    if (!baseline.empty()) row.push_back(c.speedup ? fmt::format("{:.2f}x", *c.speedup) : "-");
    if (any_checks) {
      row.push_back(c.checked == 0 ? "-"
                                   : (c.wrong == 0 ? "ok" : fmt::format("{} wrong", c.wrong)));
    }
    if (any_skew) row.push_back(c.arrival_skew ? formatSeconds(*c.arrival_skew) : "-");
    if (mixed_clocks) row.push_back(c.clock.substr(0, c.clock.find(' ')));
    row.push_back(noiseCell(c));
    row.push_back(uncertaintyCell(c));
    row.push_back(stopCell(c));
    std::vector<std::string> per_rank;
    if (inline_ranks) {
      for (const RankResult& r : c.ranks) {
        per_rank.push_back(fmt::format("r{} {}", r.rank, formatSeconds(r.summary.median)));
      }
    }
    row.push_back(fmt::format("{}", fmt::join(per_rank, "  ")));
    rows.push_back(std::move(row));
    for (const std::string& w : c.warnings) warnings.push_back(fullName(c) + ": " + w);
  }

  if (rows.size() > 1) printTable(out_, rows);
  if (nodeCount(ranks_) > 1) printByNode(out_, pending_, ranks_);
  for (const auto& [note, cases] : notes) {
    out_ << fmt::format("  note ({}): {}\n", fmt::join(cases, ", "), note);
  }
  for (const std::string& warning : warnings) out_ << "  warning: " << warning << '\n';
  out_.flush();
  pending_.clear();
}

}  // namespace splitstep
