// What every part of the terminal report writes with: aligned tables, lines kept within the
// console's width, and the numbers in the units the tables use.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace splitstep {

// The widest line the compact console prints (the header's, the tables', the warnings').
inline constexpr std::size_t kConsoleWidth = 120;

using TableRows = std::vector<std::vector<std::string>>;

// Left-aligned first and last columns, right-aligned numbers, two spaces between columns, each
// line indented by two.
void printTable(std::ostream& out, const TableRows& rows);
// Lines to print between a table's rows, each after the row of its index (0: the header), as
// they are: they take no part in the columns' widths.
using LinesBetween = std::vector<std::pair<std::size_t, std::string>>;
void printTable(std::ostream& out, const TableRows& rows, const LinesBetween& between);

// `text` in lines of at most `width` columns, broken at spaces; lines after the first indented
// by `indent` spaces. A word longer than a line stands on a line of its own.
std::vector<std::string> wrapText(const std::string& text, std::size_t width, std::size_t indent);
void printWrapped(std::ostream& out, const std::string& text, std::size_t indent = 4);

// "a, b, c": as many of `names` as fit in `width` columns, then "and N more".
std::string namesWithin(const std::vector<std::string>& names, std::size_t width);

// A time in microseconds as nccl-tests prints it into `width` columns: two decimals while
// they fit, then one, then none, then an exponent.
std::string ncclTestsNumber(double value, int width);

// "0-3,6": ascending ranks, runs of consecutive ones as ranges.
std::string rankRanges(const std::vector<int>& ranks);

// A rate: two decimals below 10, one above.
std::string formatRate(double value);
// A share: "44.3%", "2.37%".
std::string formatShare(double fraction);
// A derived figure in its unit ("s", "%", "rank", "B" or a rate's).
std::string formatFigure(const std::string& unit, double value);

}  // namespace splitstep
