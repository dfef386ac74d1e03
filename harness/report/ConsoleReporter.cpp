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

// Left-aligned first column, right-aligned numbers, two spaces between columns.
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

}  // namespace

void ConsoleReporter::reportContext(const RunContext& context) {
  ranks_ = context.ranks;
  const Versions& v = context.versions;
  out_ << fmt::format("splitstep {} ({}) | {} rank(s) on {} node(s) | {}\n", v.splitstep,
                      v.git_revision, ranks_.size(), nodeCount(ranks_), context.started_utc)
       << fmt::format("  LibTorch {} | CUDA {} (driver {}) | NCCL {} | {} | collectives: {}\n",
                      v.libtorch, v.cuda_runtime, v.cuda_driver, v.nccl, v.mpi, context.backend);
  for (const RankInfo& r : ranks_) {
    out_ << fmt::format("  rank {}: {} {} {}\n", r.rank, r.host, r.device, r.device_name);
  }
  out_ << fmt::format(
      "Each case: {} untimed warm-up run(s), then {} sample(s) of {} loop(s) on every rank.\n"
      "min / median / max: across ranks, of each rank's median; rates at the median.\n",
      context.measure.warmup, context.measure.samples, context.measure.loops);
}

void ConsoleReporter::reportCase(const CaseResult& result) {
  if (!pending_.empty() && pending_.front().suite != result.suite) flushSuite();
  pending_.push_back(result);
}

void ConsoleReporter::finalize() {
  flushSuite();
  out_.flush();
}

void ConsoleReporter::flushSuite() {
  if (pending_.empty()) return;
  std::vector<std::string> rate_names;
  bool any_checks = false;
  for (const CaseResult& c : pending_) {
    for (const RateValue& rate : c.rates) {
      if (std::find(rate_names.begin(), rate_names.end(), rate.name) == rate_names.end()) {
        rate_names.push_back(rate.name);
      }
    }
    any_checks = any_checks || c.checked > 0;
  }
  const bool inline_ranks = ranks_.size() <= kMaxRanksInline;

  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"case", "min", "median", "max", "slowest"};
  header.insert(header.end(), rate_names.begin(), rate_names.end());
  if (any_checks) header.push_back("check");
  header.push_back(inline_ranks ? "per-rank median" : "");
  rows.push_back(header);

  // Each distinct note once, with the cases it applies to.
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;
  for (const CaseResult& c : pending_) {
    for (const std::string& note : c.notes) {
      auto it = std::find_if(notes.begin(), notes.end(),
                             [&note](const auto& entry) { return entry.first == note; });
      if (it == notes.end()) it = notes.insert(notes.end(), {note, {}});
      it->second.push_back(c.case_name);
    }
    if (c.skipped()) continue;
    const RankInfo& slow = ranks_.at(static_cast<std::size_t>(c.slowest_rank));
    std::vector<std::string> row = {c.case_name, formatSeconds(c.across.min),
                                    formatSeconds(c.across.median), formatSeconds(c.across.max),
                                    fmt::format("r{} {} {}", slow.rank, slow.host, slow.device)};
    for (const std::string& name : rate_names) {
      const auto rate = std::find_if(c.rates.begin(), c.rates.end(),
                                     [&name](const RateValue& r) { return r.name == name; });
      row.push_back(rate == c.rates.end() ? "-" : formatRate(rate->value));
    }
    if (any_checks) {
      row.push_back(c.checked == 0 ? "-"
                                   : (c.wrong == 0 ? "ok" : fmt::format("{} wrong", c.wrong)));
    }
    std::vector<std::string> per_rank;
    if (inline_ranks) {
      for (const RankResult& r : c.ranks) {
        per_rank.push_back(fmt::format("r{} {}", r.rank, formatSeconds(r.summary.median)));
      }
    }
    row.push_back(fmt::format("{}", fmt::join(per_rank, "  ")));
    rows.push_back(std::move(row));
  }

  out_ << fmt::format("\n{} [{}]\n", pending_.front().suite, pending_.front().clock);
  printTable(out_, rows);
  for (const auto& [note, cases] : notes) {
    out_ << fmt::format("  note ({}): {}\n", fmt::join(cases, ", "), note);
  }
  pending_.clear();
}

}  // namespace splitstep
