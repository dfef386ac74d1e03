#include "report/ConsoleDerived.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <vector>

#include "report/ConsoleSuiteTable.hpp"
#include "report/ConsoleText.hpp"

namespace splitstep {
namespace {

// Rows and columns in the order their first figure came.
void printShortTable(std::ostream& out, const DerivedResult& derived) {
  std::vector<std::string> rows;
  std::vector<std::string> columns;
  for (const DerivedFigure& f : derived.figures) {
    if (f.row.empty()) continue;
    if (std::find(rows.begin(), rows.end(), f.row) == rows.end()) rows.push_back(f.row);
    if (std::find(columns.begin(), columns.end(), f.column) == columns.end()) {
      columns.push_back(f.column);
    }
  }
  if (rows.empty()) return;
  TableRows table(rows.size() + 1, std::vector<std::string>(columns.size() + 1));
  table[0][0] = "";
  std::copy(columns.begin(), columns.end(), table[0].begin() + 1);
  for (std::size_t r = 0; r < rows.size(); ++r) table[r + 1][0] = rows[r];
  for (const DerivedFigure& f : derived.figures) {
    if (f.row.empty()) continue;
    const auto r = std::find(rows.begin(), rows.end(), f.row) - rows.begin();
    const auto c = std::find(columns.begin(), columns.end(), f.column) - columns.begin();
    table[static_cast<std::size_t>(r) + 1][static_cast<std::size_t>(c) + 1] =
        formatFigure(f.unit, f.value);
  }
  // The last column is a number here: a final empty column keeps it right-aligned.
  for (auto& row : table) row.emplace_back();
  printTable(out, table);
  if (!derived.legend.empty()) printWrapped(out, "  " + derived.legend);
}

// Each figure on a line of its own: with its per-rank values and note where verbose.
void printFigures(std::ostream& out, const DerivedResult& derived, bool verbose) {
  TableRows rows;
  for (const DerivedFigure& figure : derived.figures) {
    if (figure.detail) continue;
    std::vector<std::string> details;
    if (figure.interval) {
      details.push_back(fmt::format("[{}, {}]", formatFigure(figure.unit, figure.interval->first),
                                    formatFigure(figure.unit, figure.interval->second)));
    }
    if (verbose && figure.per_rank.size() <= kMaxRanksInline) {
      for (const auto& [rank, value] : figure.per_rank) {
        details.push_back(fmt::format("r{} {}", rank, formatFigure(figure.unit, value)));
      }
    }
    if (verbose && !figure.note.empty()) details.push_back(figure.note);
    rows.push_back({figure.name, formatFigure(figure.unit, figure.value),
                    fmt::format("{}", fmt::join(details, "  "))});
  }
  printTable(out, rows);
}

}  // namespace

bool onlyVerbose(const DerivedResult& derived) {
  return derived.verbose_only || !derived.assumptions.empty();
}

void printDerived(std::ostream& out, const DerivedResult& derived, bool verbose) {
  out << fmt::format("\n{} {}: {}\n", derived.suite, derived.subject, derived.title);
  // A result without a short table has its figures one per line in either view.
  const bool has_table = std::any_of(derived.figures.begin(), derived.figures.end(),
                                     [](const DerivedFigure& f) { return !f.row.empty(); });
  if (verbose || !has_table) {
    printFigures(out, derived, verbose);
  } else {
    printShortTable(out, derived);
  }
  if (verbose) {
    for (const std::string& note : derived.notes) out << "  " << note << '\n';
    if (!derived.assumptions.empty()) out << "  assumes:\n";
    for (const std::string& assumption : derived.assumptions) out << "    " << assumption << '\n';
  }
  if (!derived.findings.empty()) out << "  diagnosis:\n";
  if (verbose) {
    for (const std::string& finding : derived.findings) out << "    " << finding << '\n';
    return;
  }
  // The diagnosis comes most telling first; a screen keeps its lead, the files all.
  const std::size_t shown = std::min(derived.findings.size(), derived.lead_findings);
  for (std::size_t i = 0; i < shown; ++i) printWrapped(out, "    " + derived.findings[i], 6);
  if (const std::size_t more = derived.findings.size() - shown; more > 0) {
    out << fmt::format("    and {} more finding{} (--verbose)\n", more, more == 1 ? "" : "s");
  }
}

}  // namespace splitstep
