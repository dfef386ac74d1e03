#include "report/ConsoleReporter.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "common/Units.hpp"

namespace splitstep {
namespace {

std::string formatRate(double value) { return fmt::format("{:.{}f}", value, value >= 10 ? 1 : 2); }

std::size_t nodeCount(const std::vector<RankInfo>& ranks) {
  std::set<std::string> hosts;
  for (const RankInfo& r : ranks) hosts.insert(r.host);
  return hosts.size();
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

// The largest noise over ranks, marked when sampling hit --max-time before the noise target.
std::string noiseCell(const CaseResult& c) {
  double noise = 0;
  bool missed = false;
  for (const RankResult& r : c.ranks) {
    noise = std::max(noise, r.measurement.noise);
    missed = missed || !r.measurement.noise_target_met;
  }
  const bool timed_out =
      !c.ranks.empty() && c.ranks.front().measurement.stop_reason == kStopReasonTimeLimit;
  return fmt::format("{:.2f}%{}", noise * 100, missed && timed_out ? "*" : "");
}

// %timeit's two lines, for one rank.
void printTimeit(std::ostream& out, const std::string& label, const RankResult& r) {
  const Summary& s = r.summary;
  const Measurement& m = r.measurement;
  const std::size_t indent = label.size();
  out << fmt::format("  {}  {} ± {} per loop (mean ± std. dev. of {} runs, {} loop{} each)\n",
                     label, formatSeconds(s.mean), formatSeconds(s.stddev), s.n, m.loops,
                     m.loops == 1 ? "" : "s");
  const std::string host =
      r.host_summary ? fmt::format("; host {} per loop", formatSeconds(r.host_summary->median))
                     : "";
  out << fmt::format("  {:<{}}  median {}, IQR {}, min {}; cold start {}{}\n", "", indent,
                     formatSeconds(s.median), formatSeconds(s.iqr), formatSeconds(s.min),
                     formatSeconds(m.cold), host);
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

std::string formatFigure(const std::string& unit, double value) {
  if (unit == "s") return formatSeconds(value);
  if (unit == "%") return fmt::format("{:.1f}%", value);
  if (unit == "rank") return fmt::format("r{}", static_cast<long long>(value));
  return formatRate(value) + " " + unit;
}

}  // namespace

void ConsoleReporter::reportContext(const RunContext& context) {
  ranks_ = context.ranks;
  const Versions& v = context.versions;
  const MeasureSettings& ms = context.measure;
  out_ << fmt::format("splitstep {} ({}) | {} rank(s) on {} node(s) | {}\n", v.splitstep,
                      v.git_revision, ranks_.size(), nodeCount(ranks_), context.started_utc)
       << fmt::format("  LibTorch {} | CUDA {} (driver {}) | NCCL {} | {} | collectives: {}\n",
                      v.libtorch, v.cuda_runtime, v.cuda_driver, v.nccl, v.mpi,
                      context.backend.empty() ? "none" : context.backend);
  for (const RankInfo& r : ranks_) {
    out_ << fmt::format("  rank {}: {} {} {}\n", r.rank, r.host, r.device, r.device_name);
  }
  for (const std::string& note : context.notes) out_ << "  note: " << note << '\n';
  const std::string samples =
      ms.samples > 0 ? fmt::format("{} samples", ms.samples)
                     : fmt::format(
                           "samples until std/mean <= {:g}% (at least {} samples and {} "
                           "of them; at most {} per case)",
                           ms.max_noise * 100, ms.min_samples, formatSeconds(ms.min_time),
                           formatSeconds(ms.max_time));
  const std::string loops = ms.loops > 0 ? fmt::format("{} loops each", ms.loops)
                                         : fmt::format("loops chosen so a sample lasts >= {}",
                                                       formatSeconds(ms.min_sample_time));
  out_ << fmt::format(
      "Each case: a timed cold start, {} warm-up run(s){}, then {}, {}.\n"
      "min / median / max: across ranks, of each rank's median; rates at that median.\n"
      "host: how long the host took to queue one loop; far below the device time, it shows the "
      "host "
      "returning long before the GPU finishes.\n",
      ms.warmup,
      ms.warmup_time > 0 ? fmt::format(" and {} of warm-up", formatSeconds(ms.warmup_time)) : "",
      samples, loops);
}

void ConsoleReporter::reportCase(const CaseResult& result) {
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
    std::vector<std::string> details;
    if (figure.per_rank.size() <= kMaxRanksInline) {
      for (const auto& [rank, value] : figure.per_rank) {
        details.push_back(fmt::format("r{} {}", rank, formatFigure(figure.unit, value)));
      }
    }
    if (!figure.note.empty()) details.push_back(figure.note);
    rows.push_back({figure.name, formatFigure(figure.unit, figure.value),
                    fmt::format("{}", fmt::join(details, "  "))});
  }
  printTable(out_, rows);
  if (!derived.findings.empty()) out_ << "  diagnosis:\n";
  for (const std::string& finding : derived.findings) out_ << "    " << finding << '\n';
}

void ConsoleReporter::finalize() {
  flushSuite();
  out_.flush();
}

void ConsoleReporter::endEarly(const std::string& reason) {
  flushSuite();
  out_ << fmt::format("\nThe run ended early: {}\n", reason);
  out_.flush();
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
  header.push_back(inline_ranks ? "per-rank median" : "");
  rows.push_back(header);

  // Each distinct note once, with the cases it applies to.
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;
  std::vector<std::string> warnings;
  bool any_missed_target = false;
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
    any_missed_target = any_missed_target || row.back().ends_with('*');
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
  if (any_missed_target) out_ << "  * the noise target was not met before --max-time\n";
  for (const auto& [note, cases] : notes) {
    out_ << fmt::format("  note ({}): {}\n", fmt::join(cases, ", "), note);
  }
  for (const std::string& warning : warnings) out_ << "  warning: " << warning << '\n';
  out_.flush();
  pending_.clear();
}

}  // namespace splitstep
