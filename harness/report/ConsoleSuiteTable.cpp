#include "report/ConsoleSuiteTable.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "cases/CollectiveCase.hpp"
#include "cases/Rates.hpp"
#include "common/Units.hpp"
#include "derived/NodeSpread.hpp"
#include "report/ConsoleText.hpp"
#include "stats/MedianInterval.hpp"

namespace splitstep {
namespace {

// The largest noise (std/mean) over ranks: the workload's spread.
double largestNoise(const CaseResult& c) {
  double noise = 0;
  for (const RankResult& r : c.ranks) noise = std::max(noise, r.measurement.noise);
  return noise;
}

// The largest uncertainty of a rank's median over ranks: how far its 95% interval reaches from
// it; nullopt where a rank had too few samples for a 95% interval.
std::optional<double> largestReach(const CaseResult& c) {
  double reach = 0;
  for (const RankResult& r : c.ranks) {
    if (r.median_ci.coverage < kMedianConfidence) return std::nullopt;
    reach = std::max(reach, relativeReach(r.median_ci, r.summary.median));
  }
  return reach;
}

std::string percentCell(std::optional<double> share) {
  return share ? fmt::format("{:.2f}%", *share * 100) : "-";
}

std::string noiseCell(const CaseResult& c) { return percentCell(largestNoise(c)); }

std::string uncertaintyCell(const CaseResult& c) { return percentCell(largestReach(c)); }

// The rules that ended sampling, each once: ranks stop together, each on its own rule.
std::string stopCell(const CaseResult& c) {
  std::vector<std::string_view> rules;
  for (const RankResult& r : c.ranks) {
    const std::string_view rule = toString(r.measurement.stop_rule);
    if (std::find(rules.begin(), rules.end(), rule) == rules.end()) rules.push_back(rule);
  }
  return fmt::format("{}", fmt::join(rules, "/"));
}

std::string rateCell(const CaseResult& c, std::string_view name) {
  const auto rate = std::find_if(c.rates.begin(), c.rates.end(),
                                 [&name](const RateValue& r) { return r.name == name; });
  return rate == c.rates.end() ? "-" : formatRate(rate->value);
}

// NCCL's algorithm and protocol, as its tuning log writes them: "ring/simple".
std::string ncclCell(const CaseResult& c) {
  const auto fields = CollectiveCase::decode(c.fields);
  if (!fields || !fields->nccl) return "-";
  std::string cell = fields->nccl->algorithm + "/" + fields->nccl->protocol;
  std::transform(cell.begin(), cell.end(), cell.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return cell;
}

std::string checkCell(const CaseResult& c) {
  return c.checked == 0 ? "-" : (c.wrong == 0 ? "ok" : fmt::format("{} wrong", c.wrong));
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

// What the columns of a suite's cases are: the rates they have, a baseline, checks, ...
struct Columns {
  std::vector<std::string> rates;
  std::string baseline;
  bool checks = false;
  bool skew = false;
  bool parts = false;
  bool collectives = false;
  bool nccl = false;  // NCCL told its algorithm for a case
  bool mixed_clocks = false;

  explicit Columns(const std::vector<CaseResult>& cases) {
    std::set<std::string> clocks;
    for (const CaseResult& c : cases) {
      skew = skew || c.arrival_skew.has_value();
      parts = parts || (!c.part_of.empty() && !c.skipped());
      const auto collective = CollectiveCase::decode(c.fields);
      collectives = collectives || collective.has_value();
      nccl = nccl || (collective && collective->nccl);
      if (!c.skipped()) clocks.insert(c.clock);
      for (const RateValue& rate : c.rates) {
        if (std::find(rates.begin(), rates.end(), rate.name) == rates.end()) {
          rates.push_back(rate.name);
        }
      }
      if (c.speedup) baseline = c.speedup_baseline;
      checks = checks || c.checked > 0;
    }
    mixed_clocks = clocks.size() > 1;
  }
};

// Each whole case's per-rank medians by node, for a run on more than one node.
void printByNode(std::ostream& out, const std::vector<CaseResult>& cases,
                 const std::vector<RankInfo>& ranks) {
  TableRows rows = {{"case", "node", "ranks", "min", "median", "max", ""}};
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

// Each distinct note once, with the cases it applies to (the parts of a case share its notes:
// the case is named once).
std::vector<std::pair<std::string, std::vector<std::string>>> mergedNotes(
    const std::vector<CaseResult>& cases, bool skipped_only) {
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;
  for (const TableEntry& entry : tableOrder(cases)) {
    const CaseResult& c = *entry.result;
    if (skipped_only && !c.skipped()) continue;
    for (const std::string& note : c.notes) {
      auto it = std::find_if(notes.begin(), notes.end(),
                             [&note](const auto& known) { return known.first == note; });
      if (it == notes.end()) it = notes.insert(notes.end(), {note, {}});
      if (std::find(it->second.begin(), it->second.end(), c.case_name) == it->second.end()) {
        it->second.push_back(c.case_name);
      }
    }
  }
  return notes;
}

void printVerbose(std::ostream& out, const std::vector<CaseResult>& cases,
                  const std::vector<RankInfo>& ranks) {
  const Columns columns(cases);
  const bool inline_ranks = ranks.size() <= kMaxRanksInline;
  std::vector<std::string> header = {"case", "min", "median", "max"};
  if (columns.parts) header.push_back("share");
  header.push_back("slowest");
  header.insert(header.end(), columns.rates.begin(), columns.rates.end());
  if (columns.nccl) header.push_back("nccl");
  if (!columns.baseline.empty()) header.push_back("vs " + columns.baseline);
  if (columns.checks) header.push_back("check");
  if (columns.skew) header.push_back("skew");
  if (columns.mixed_clocks) header.push_back("clock");
  header.insert(header.end(), {"noise", "±ci", "stop", inline_ranks ? "per-rank median" : ""});
  TableRows rows = {header};
  std::vector<std::string> warnings;
  for (const TableEntry& entry : tableOrder(cases)) {
    const CaseResult& c = *entry.result;
    if (c.skipped()) continue;
    const RankInfo& slow = ranks.at(static_cast<std::size_t>(c.slowest_rank));
    std::vector<std::string> row = {rowLabel(entry), formatSeconds(c.across.min),
                                    formatSeconds(c.across.median), formatSeconds(c.across.max)};
    if (columns.parts) row.push_back(c.share ? fmt::format("{:.1f}%", *c.share * 100) : "-");
    row.push_back(fmt::format("r{} {} {}", slow.rank, slow.host, slow.device));
    for (const std::string& name : columns.rates) row.push_back(rateCell(c, name));
    if (columns.nccl) row.push_back(ncclCell(c));
    if (!columns.baseline.empty()) {
      row.push_back(c.speedup ? fmt::format("{:.2f}x", *c.speedup) : "-");
    }
    if (columns.checks) row.push_back(checkCell(c));
    if (columns.skew) row.push_back(c.arrival_skew ? formatSeconds(*c.arrival_skew) : "-");
    if (columns.mixed_clocks) row.push_back(c.clock.substr(0, c.clock.find(' ')));
    row.insert(row.end(), {noiseCell(c), uncertaintyCell(c), stopCell(c)});
    std::vector<std::string> per_rank;
    if (inline_ranks) {
      for (const RankResult& r : c.ranks) {
        per_rank.push_back(fmt::format("r{} {}", r.rank, formatSeconds(r.summary.median)));
      }
    }
    row.push_back(fmt::format("{}", fmt::join(per_rank, "  ")));
    rows.push_back(std::move(row));
    for (const CaseWarning& w : c.warnings) warnings.push_back(fullName(c) + ": " + w.text);
  }
  if (rows.size() > 1) printTable(out, rows);
  if (nodeCount(ranks) > 1) printByNode(out, cases, ranks);
  for (const auto& [note, names] : mergedNotes(cases, false)) {
    out << fmt::format("  note ({}): {}\n", fmt::join(names, ", "), note);
  }
  for (const std::string& warning : warnings) out << "  warning: " << warning << '\n';
}

// nccl-tests' first columns of a collective case: size (B), count (elements), type.
std::vector<std::string> collectiveCells(const CaseResult& c) {
  const auto fields = CollectiveCase::decode(c.fields);
  if (!fields) return {"-", "-", "-"};
  return {std::to_string(fields->bytes), std::to_string(fields->count),
          std::string(toString(fields->dtype))};
}

// A collective case is named by what its columns leave out: backend, placement, group.
std::string compactLabel(const CaseResult& c) {
  const auto fields = CollectiveCase::decode(c.fields);
  if (!fields) return c.case_name;
  std::string label = fmt::format("{} {}", fields->backend, toString(fields->placement));
  if (fields->group) label += fmt::format(" group {}", fields->group->index);
  return label;
}

// `head` and the cases it names on one line where the head leaves room for a few names; after a
// longer head, on as many lines as the head needs.
void printNamed(std::ostream& out, const std::string& head, const std::vector<std::string>& names) {
  constexpr std::size_t kRoom = 24;
  if (head.size() + kRoom <= kConsoleWidth) {
    out << head << namesWithin(names, kConsoleWidth - head.size()) << '\n';
  } else {
    printWrapped(out, head + namesWithin(names, kConsoleWidth - kRoom));
  }
}

// The unit %timeit would print the median of the cases' medians in.
TimeUnit columnUnit(const std::vector<CaseResult>& cases) {
  std::vector<double> medians;
  for (const CaseResult& c : cases) {
    if (!c.skipped() && c.part_of.empty()) medians.push_back(c.across.median);
  }
  if (medians.empty()) return kMicroseconds;
  std::nth_element(medians.begin(), medians.begin() + medians.size() / 2, medians.end());
  return timeUnitOf(medians[medians.size() / 2]);
}

// "data 44.3%  forward 17.1%  ...": the shares of `whole`'s parts, in the order they came;
// empty where it has none.
std::string partShares(const std::vector<CaseResult>& cases, const CaseResult& whole) {
  std::vector<std::string> shares;
  for (const CaseResult& part : cases) {
    if (isPartOf(part, whole) && part.share) {
      shares.push_back(fmt::format("{} {}", part.series, formatShare(*part.share)));
    }
  }
  return shares.empty() ? std::string() : fmt::format("    {}", fmt::join(shares, "  "));
}

void printCompact(std::ostream& out, const std::vector<CaseResult>& cases,
                  const std::vector<RankInfo>& ranks) {
  const Columns columns(cases);
  const bool name_hosts = nodeCount(ranks) > 1;
  std::vector<std::string> header = {"case"};
  if (columns.collectives) header.insert(header.end(), {"size (B)", "count", "type"});
  // Collectives keep nccl-tests' microseconds; other tables take the unit %timeit would give
  // their median case, so that a step reads 5.505 ms, not 5504.69 us.
  const TimeUnit unit = columns.collectives ? kMicroseconds : columnUnit(cases);
  header.push_back(fmt::format("time ({})", unit.name));
  header.insert(header.end(), columns.rates.begin(), columns.rates.end());
  if (columns.nccl) header.push_back("nccl");
  if (!columns.baseline.empty()) header.push_back("vs " + columns.baseline);
  if (columns.checks) header.push_back("#wrong");
  // One rank is always the slowest: the column would say nothing.
  const bool slowest = ranks.size() > 1;
  header.push_back("±ci");
  if (slowest) header.push_back("slowest");
  header.push_back("noise");
  TableRows rows = {header};
  // Each whole's parts' shares, on a line of their own under its row, outside the columns.
  LinesBetween shares;
  for (const CaseResult& c : cases) {
    if (c.skipped() || !c.part_of.empty()) continue;
    if (std::string line = partShares(cases, c); !line.empty()) {
      shares.emplace_back(rows.size(), std::move(line));
    }
    std::vector<std::string> row = {compactLabel(c)};
    if (columns.collectives) {
      for (std::string& cell : collectiveCells(c)) row.push_back(std::move(cell));
    }
    row.push_back(ncclTestsNumber(c.across.median * unit.factor, 7));
    for (const std::string& name : columns.rates) row.push_back(rateCell(c, name));
    if (columns.nccl) row.push_back(ncclCell(c));
    if (!columns.baseline.empty()) {
      row.push_back(c.speedup ? fmt::format("{:.2f}x", *c.speedup) : "-");
    }
    if (columns.checks) row.push_back(c.checked == 0 ? "N/A" : std::to_string(c.wrong));
    row.push_back(uncertaintyCell(c));
    if (slowest) {
      const RankInfo& slow = ranks.at(static_cast<std::size_t>(c.slowest_rank));
      row.push_back(name_hosts ? fmt::format("r{} {}", slow.rank, slow.host)
                               : fmt::format("r{}", slow.rank));
    }
    row.push_back(noiseCell(c));
    rows.push_back(std::move(row));
  }
  if (rows.size() > 1) printTable(out, rows, shares);
  for (const auto& [note, named] : mergedNotes(cases, true)) {
    printNamed(out, fmt::format("  {}: ", note), named);
  }
  // The compact table has no stop column: a case a sweep's budget cut short says so here.
  std::vector<std::string> budgeted;
  for (const TableEntry& entry : tableOrder(cases)) {
    const CaseResult& c = *entry.result;
    if (std::any_of(c.ranks.begin(), c.ranks.end(), [](const RankResult& r) {
          return r.measurement.stop_rule == StopRule::SweepTime;
        })) {
      budgeted.push_back(fullName(c));
    }
  }
  if (!budgeted.empty()) {
    printNamed(out, "  stopped on its share of --sweep-time, short of --ci-target: ", budgeted);
  }
}

}  // namespace

std::string compactLegend(std::size_t ranks) {
  return ranks > 1
             ? "  time: median of the ranks' medians; ±ci: reach of its 95% interval; slowest: "
               "longest median; noise: std/mean"
             : "  time: the median; ±ci: reach of its 95% interval; noise: std/mean";
}

void printCollectivesOnOneRank(std::ostream& out,
                               const std::vector<std::vector<CaseResult>>& suites) {
  std::size_t collectives = 0;
  // Fastest and slowest median at each size, over every collective, in bytes' order.
  std::map<std::uint64_t, std::pair<double, double>> by_size;
  std::size_t measured = 0;
  std::size_t skipped = 0;
  std::vector<std::string> wrong;
  std::string clock;
  for (const std::vector<CaseResult>& suite : suites) {
    if (suite.empty()) continue;
    ++collectives;
    for (const CaseResult& c : suite) {
      const auto fields = CollectiveCase::decode(c.fields);
      if (!c.part_of.empty() || !fields) continue;
      if (c.skipped()) {
        ++skipped;
        continue;
      }
      ++measured;
      clock = c.clock;
      const double median = c.across.median;
      const auto [it, added] = by_size.try_emplace(fields->bytes, median, median);
      it->second = {std::min(it->second.first, median), std::max(it->second.second, median)};
      if (c.wrong > 0)
        wrong.push_back(fmt::format("{} {} ({} wrong)", c.suite, c.case_name, c.wrong));
    }
  }
  std::vector<std::string> sizes;
  for (const auto& [bytes, range] : by_size) {
    sizes.push_back(fmt::format("{} {} to {}", formatBytes(bytes), formatSeconds(range.first),
                                formatSeconds(range.second)));
  }
  out << fmt::format(
      "{} collectives on one rank [{}]: no link crossed, so no bandwidth to judge (--verbose: a "
      "table each)\n",
      collectives, clock.empty() ? "none measured" : clock);
  std::string checks = wrong.empty()
                           ? fmt::format("{} cases, none wrong", measured)
                           : fmt::format("{} cases, wrong: {}", measured, fmt::join(wrong, ", "));
  if (skipped > 0) checks += fmt::format(", {} skipped", skipped);
  printWrapped(out, fmt::format("  {}; time by size, fastest to slowest collective: {}", checks,
                                fmt::join(sizes, ", ")));
}

bool printCollectiveMatrix(std::ostream& out, const std::vector<std::vector<CaseResult>>& suites,
                           std::size_t ranks) {
  // A row per collective and variant (backend, placement, group, dtype), a column per size
  // asked for; a suite's case without its collective's fields has no place in it.
  struct Row {
    std::string label;
    std::map<std::uint64_t, const CaseResult*> by_size;
  };
  std::vector<Row> rows;
  std::set<std::uint64_t> sizes;
  std::vector<CaseResult> all;
  std::vector<std::string> wrong;
  std::size_t measured = 0;
  std::string clock;
  for (const std::vector<CaseResult>& suite : suites) {
    for (const CaseResult& c : suite) {
      all.push_back(c);
      if (!c.part_of.empty() || c.skipped()) continue;
      const auto fields = CollectiveCase::decode(c.fields);
      if (!fields) return false;
      const std::string label =
          fmt::format("{} {} {}", c.suite, compactLabel(c), toString(fields->dtype));
      auto row = std::find_if(rows.begin(), rows.end(),
                              [&label](const Row& r) { return r.label == label; });
      if (row == rows.end()) row = rows.insert(rows.end(), Row{label, {}});
      row->by_size[fields->size] = &c;
      sizes.insert(fields->size);
      ++measured;
      if (c.wrong > 0) {
        wrong.push_back(fmt::format("{} {} ({} wrong)", c.suite, c.case_name, c.wrong));
      }
      clock = c.clock;
    }
  }
  if (rows.empty() || sizes.size() > kMatrixSizes) return false;
  std::vector<std::string> header = {"collective"};
  for (std::uint64_t size : sizes) header.push_back(formatBytes(size));
  header.insert(header.end(), {std::string(rates::kBusbw.name), "±ci", "noise"});
  TableRows table = {header};
  for (const Row& row : rows) {
    std::vector<std::string> cells = {row.label};
    std::optional<double> reach = 0;
    double noise = 0;
    for (std::uint64_t size : sizes) {
      const auto it = row.by_size.find(size);
      if (it == row.by_size.end()) {
        cells.emplace_back("-");
        continue;
      }
      const CaseResult& c = *it->second;
      cells.push_back(formatSeconds(c.across.median));
      noise = std::max(noise, largestNoise(c));
      const std::optional<double> its = largestReach(c);
      reach = reach && its ? std::optional(std::max(*reach, *its)) : std::nullopt;
    }
    cells.push_back(rateCell(*row.by_size.rbegin()->second, rates::kBusbw.name));
    cells.push_back(percentCell(reach));
    cells.push_back(percentCell(noise));
    table.push_back(std::move(cells));
  }
  out << fmt::format("{} collectives over {} ranks [{}] (--verbose: a table each)\n", suites.size(),
                     ranks, clock.empty() ? "none measured" : clock);
  printTable(out, table);
  const std::string checks =
      wrong.empty() ? fmt::format("{} cases, none wrong", measured)
                    : fmt::format("{} cases, wrong: {}", measured, fmt::join(wrong, ", "));
  printWrapped(out, fmt::format("  {}; time by size asked (--bytes): median of the ranks' "
                                "medians; busbw: at the largest size; ±ci, noise: the largest "
                                "over the sizes",
                                checks));
  for (const auto& [note, named] : mergedNotes(all, true)) {
    printNamed(out, fmt::format("  {}: ", note), named);
  }
  return true;
}

void noteWarnings(const std::vector<CaseResult>& cases, CaseWarnings& warned) {
  for (const CaseResult& c : cases) {
    for (const CaseWarning& w : c.warnings) warned[w.kind].push_back(c.suite + " " + fullName(c));
  }
}

void printWarnings(std::ostream& out, const CaseWarnings& warned) {
  for (const auto& [kind, named] : warned) {
    printNamed(out, fmt::format("warning: {}: ", describe(kind)), named);
  }
}

void printSuiteTable(std::ostream& out, const std::vector<CaseResult>& cases,
                     const std::vector<RankInfo>& ranks, bool verbose) {
  if (verbose) {
    printVerbose(out, cases, ranks);
  } else {
    printCompact(out, cases, ranks);
  }
}

}  // namespace splitstep
