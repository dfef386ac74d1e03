#include "report/ConsoleText.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "common/Units.hpp"

namespace splitstep {

void printTable(std::ostream& out, const TableRows& rows) { printTable(out, rows, {}); }

void printTable(std::ostream& out, const TableRows& rows, const LinesBetween& between) {
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
    const std::size_t index = static_cast<std::size_t>(&row - rows.data());
    for (const auto& [after, text] : between) {
      if (after == index) out << text << '\n';
    }
  }
}

std::string formatShare(double fraction) {
  const double percent = fraction * 100;
  return fmt::format("{:.{}f}%", percent, std::fabs(percent) >= 10 ? 1 : 2);
}

std::vector<std::string> wrapText(const std::string& text, std::size_t width, std::size_t indent) {
  std::vector<std::string> lines;
  // The first line keeps the text's own indent.
  const std::size_t lead = std::min(text.find_first_not_of(' '), text.size());
  std::istringstream words(text.substr(lead));
  std::string line;
  for (std::string word; words >> word;) {
    const std::size_t start = lines.empty() ? lead : indent;
    if (!line.empty() && start + line.size() + 1 + word.size() > width) {
      lines.push_back(std::string(start, ' ') + line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(std::string(lines.empty() ? lead : indent, ' ') + line);
  return lines;
}

void printWrapped(std::ostream& out, const std::string& text, std::size_t indent) {
  for (const std::string& line : wrapText(text, kConsoleWidth, indent)) out << line << '\n';
}

std::string namesWithin(const std::vector<std::string>& names, std::size_t width) {
  std::string joined;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string next = (joined.empty() ? "" : ", ") + names[i];
    const std::size_t left = names.size() - i - 1;
    // Room for this name and, where others follow, for the count of those left out.
    const std::size_t tail = left > 0 ? fmt::format(", and {} more", left).size() : 0;
    if (joined.size() + next.size() + tail > width) {
      return joined + fmt::format("{}and {} more", joined.empty() ? "" : ", ", names.size() - i);
    }
    joined += next;
  }
  return joined;
}

std::string ncclTestsNumber(double value, int width) {
  int power = 0;
  for (std::uint64_t v = 1; value >= static_cast<double>(v) && power < 20; v *= 10) ++power;
  if (power < width - 2) return fmt::format("{:>{}.2f}", value, width);
  if (power < width - 1) return fmt::format("{:>{}.1f}", value, width);
  if (power < width + 1) return fmt::format("{:>{}.0f}", value, width);
  return width >= 7 ? fmt::format("{:>{}.1e}", value, width)
                    : fmt::format("{:>{}.0e}", value, width);
}

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

std::string formatRate(double value) { return fmt::format("{:.{}f}", value, value >= 10 ? 1 : 2); }

std::string formatFigure(const std::string& unit, double value) {
  if (unit == "s") return formatSeconds(value);
  if (unit == "%") return fmt::format("{:.1f}%", value);
  if (unit == "rank") return fmt::format("r{}", static_cast<long long>(value));
  if (unit == "B") return formatBytes(static_cast<std::uint64_t>(value));
  if (unit == "x") return fmt::format("{:.2f}x", value);
  return formatRate(value) + " " + unit;
}

}  // namespace splitstep
