#include "report/ConsoleNcclTests.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <string>

#include "cases/CollectiveCase.hpp"
#include "cases/Rates.hpp"
#include "comm/Collective.hpp"
#include "report/ConsoleText.hpp"

namespace splitstep {
namespace {

// nccl-tests' type names (src/common.cu test_typenames).
std::string_view typeName(CollectiveDtype dtype) {
  switch (dtype) {
    case CollectiveDtype::Fp32:
      return "float";
    case CollectiveDtype::Bf16:
      return "bfloat16";
    case CollectiveDtype::Fp16:
      return "half";
  }
  return "";
}

// One line of the table: a size and type, each placement's case where it ran.
struct Line {
  CollectiveCase fields;
  std::array<const CaseResult*, 2> placements{};  // out of place, in place
};

// The cases of one backend and group of ranks, in the order they came.
struct Table {
  std::string collective;
  std::string backend;
  std::optional<std::int64_t> group;
  std::string clock;
  std::vector<Line> lines;
};

std::vector<Table> tablesOf(const std::vector<CaseResult>& cases) {
  std::vector<Table> tables;
  for (const CaseResult& c : cases) {
    const auto fields = CollectiveCase::decode(c.fields);
    if (!fields || c.skipped() || !c.part_of.empty()) continue;
    const std::optional<std::int64_t> group =
        fields->group ? std::optional(fields->group->index) : std::nullopt;
    auto table = std::find_if(tables.begin(), tables.end(), [&](const Table& t) {
      return t.collective == fields->collective && t.backend == fields->backend && t.group == group;
    });
    if (table == tables.end()) {
      table =
          tables.insert(tables.end(), {fields->collective, fields->backend, group, c.clock, {}});
    }
    auto line = std::find_if(table->lines.begin(), table->lines.end(), [&](const Line& l) {
      return l.fields.dtype == fields->dtype && l.fields.bytes == fields->bytes;
    });
    if (line == table->lines.end()) line = table->lines.insert(table->lines.end(), {*fields, {}});
    line->placements[fields->inPlace() ? 1 : 0] = &c;
  }
  return tables;
}

void printHeader(std::ostream& out) {
  out << "#\n"
      << fmt::format(
             "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place              "
             "         in-place          \n",
             "", "", "", "", "")
      << fmt::format(
             "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  "
             "{:>6}  {:>6} \n",
             "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
             "algbw", "busbw", "#wrong")
      << fmt::format(
             "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  "
             "{:>6}  {:>6} \n",
             "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
             "(GB/s)", "");
}

// One placement's four columns; nccl-tests' N/A where there is no figure.
std::string body(const CaseResult* c, double& busbw_sum, int& busbw_count) {
  if (c == nullptr) return fmt::format("  {:>7}  {:>6}  {:>6}    N/A", "N/A", "N/A", "N/A");
  const auto algbw = c->rate(rates::kAlgbw);
  const auto busbw = c->rate(rates::kBusbw);
  if (busbw) {
    busbw_sum += *busbw;
    ++busbw_count;
  }
  std::string text = fmt::format("  {}  {}  {}", ncclTestsNumber(c->across.median * 1e6, 7),
                                 algbw ? ncclTestsNumber(*algbw, 6) : "   N/A",
                                 busbw ? ncclTestsNumber(*busbw, 6) : "   N/A");
  text += c->checked > 0 ? fmt::format("  {:>6g}", static_cast<double>(c->wrong)) : "    N/A";
  return text;
}

}  // namespace

NcclTestsColumns ncclTestsColumns(const CollectiveDescriptor& collective) {
  return {toString(collective.reduction), collective.root.value_or(-1)};
}

void printNcclTestsTable(std::ostream& out, const std::vector<CaseResult>& cases) {
  for (const Table& table : tablesOf(cases)) {
    // A case of a collective this build does not know shows neither reduction nor root.
    const CollectiveDescriptor* collective = findCollective(table.collective);
    const NcclTestsColumns columns =
        collective ? ncclTestsColumns(*collective) : NcclTestsColumns{"none", -1};
    out << fmt::format(
        "# {} on {}{}: {}, splitstep's median across ranks\n", table.collective, table.backend,
        table.group ? fmt::format(", group {}", *table.group) : std::string(), table.clock);
    printHeader(out);
    double busbw_sum = 0;
    int busbw_count = 0;
    std::uint64_t wrong = 0;
    for (const Line& line : table.lines) {
      out << fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}", line.fields.bytes,
                         line.fields.count, typeName(line.fields.dtype), columns.redop,
                         columns.root);
      for (const CaseResult* c : line.placements) {
        out << body(c, busbw_sum, busbw_count);
        if (c != nullptr) wrong += c->wrong;
      }
      out << '\n';
    }
    out << fmt::format("# {:<20} : {} {}\n", "Out of bounds values", wrong,
                       wrong > 0 ? "FAILED" : "OK")
        << fmt::format("# {:<20} : {:g} \n", "Avg bus bandwidth",
                       busbw_count > 0 ? busbw_sum / busbw_count : 0.0)
        << "#\n";
  }
  // nccl-tests has no row for a size it did not run: each case left out says why, as a comment.
  for (const CaseResult& c : cases) {
    if (c.skipped() && CollectiveCase::decode(c.fields)) {
      out << fmt::format("# skipped {}: {}\n", c.case_name, fmt::join(c.notes, "; "));
    }
  }
}

}  // namespace splitstep
