#include "options/OptionValue.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>

#include "options/Spelling.hpp"

namespace splitstep {
namespace {

constexpr int kMaxCount = 1'000'000;

bool parseNumber(std::string_view text, double& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && std::isfinite(out);
}

template <typename Int>
bool parseInteger(std::string_view text, Int& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string trimmed(std::string item) {
  item.erase(0, item.find_first_not_of(" \t"));
  item.erase(item.find_last_not_of(" \t") + 1);
  return item;
}

}  // namespace

namespace {

// `text` with each byte `kept` refuses written as "\x1b".
std::string escaped(std::string_view text, bool (*kept)(unsigned char)) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (kept(byte)) {
      out += c;
    } else {
      out += fmt::format("\\x{:02x}", byte);
    }
  }
  return out;
}

}  // namespace

std::string printable(std::string_view text, std::size_t limit) {
  std::string out = escaped(text.substr(0, limit),
                            [](unsigned char byte) { return byte >= 0x20 && byte < 0x7f; });
  if (text.size() > limit) out += fmt::format("... ({} characters)", text.size());
  return out;
}

std::string withControlBytesShown(std::string_view text) {
  return escaped(text, [](unsigned char byte) { return byte >= 0x20 && byte != 0x7f; });
}

std::uint64_t parseByteSize(const std::string& option, const std::string& text) {
  static const std::vector<std::pair<std::string, std::uint64_t>> kSuffixes = {{"KiB", 1ull << 10},
                                                                               {"MiB", 1ull << 20},
                                                                               {"GiB", 1ull << 30},
                                                                               {"K", 1ull << 10},
                                                                               {"M", 1ull << 20},
                                                                               {"G", 1ull << 30},
                                                                               {"B", 1}};
  const OptionValue value(option, text);
  std::string_view digits = text;
  std::uint64_t multiplier = 1;
  for (const auto& [suffix, factor] : kSuffixes) {
    if (digits.size() > suffix.size() && digits.ends_with(suffix)) {
      digits.remove_suffix(suffix.size());
      multiplier = factor;
      break;
    }
  }
  std::uint64_t count = 0;
  if (!parseInteger(digits, count)) {
    value.fail(fmt::format("'{}' is not a byte count (e.g. 8, 64K, 1M, 4G)", printable(text)));
  }
  if (count > std::numeric_limits<std::uint64_t>::max() / multiplier) {
    value.fail(fmt::format("'{}' is too large", printable(text)));
  }
  return count * multiplier;
}

double parseDuration(const std::string& option, const std::string& text) {
  static const std::vector<std::pair<std::string, double>> kUnits = {
      {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"s", 1}, {"min", 60}};
  std::string_view digits = text;
  double unit = 1;
  for (const auto& [suffix, factor] : kUnits) {
    if (digits.size() > suffix.size() && digits.ends_with(suffix)) {
      digits.remove_suffix(suffix.size());
      unit = factor;
      break;
    }
  }
  double value = 0;
  if (!parseNumber(digits, value) || value < 0) {
    OptionValue(option, text)
        .fail(fmt::format("'{}' is not a duration (e.g. 500us, 2ms, 0.5s, 15)", printable(text)));
  }
  return value * unit;
}

void OptionValue::fail(std::string_view reason) const {
  throw UsageError(fmt::format("--{}: {}", option_, reason));
}

void OptionValue::failUnknown(std::string_view noun, const std::string& item,
                              const std::string& choices) const {
  std::vector<std::string_view> names;
  for (std::string_view rest = choices; !rest.empty();) {
    const std::size_t comma = rest.find(", ");
    names.push_back(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
  }
  fail(fmt::format("unknown {} '{}'{} ({})", noun, printable(item), didYouMean(item, names),
                   choices));
}

std::int64_t OptionValue::integer(std::int64_t min, std::int64_t max) const {
  std::int64_t value = 0;
  if (!parseInteger(std::string_view(text_), value)) {
    // A number too large for any integer is still a number: say where the range is.
    double number = 0;
    if (parseNumber(text_, number) && std::trunc(number) == number) {
      fail(fmt::format("{} is out of range [{}, {}]", printable(text_), min, max));
    }
    throw UsageError(
        fmt::format("the argument ('{}') for option '--{}' is invalid: not an integer "
                    "in [{}, {}]",
                    printable(text_), option_, min, max));
  }
  if (value < min || value > max) fail(fmt::format("{} is out of range [{}, {}]", value, min, max));
  return value;
}

int OptionValue::count(int min) const { return static_cast<int>(integer(min, kMaxCount)); }

double OptionValue::number(bool (*accept)(double), std::string_view what) const {
  double value = 0;
  if (!parseNumber(text_, value) || !accept(value)) {
    fail(fmt::format("'{}' is not {}", printable(text_), what));
  }
  return value;
}

double OptionValue::seconds(double min, double max) const {
  const double value = parseDuration(std::string(option_), text_);
  if (value < min || value > max) {
    fail(fmt::format("'{}' is out of range [{}s, {}s]", printable(text_), min, max));
  }
  return value;
}

double OptionValue::percent() const {
  std::string_view digits = text_;
  if (digits.ends_with('%')) digits.remove_suffix(1);
  double value = 0;
  if (!parseNumber(digits, value) || value <= 0 || value > 100) {
    fail(fmt::format("'{}' is not a percentage in (0, 100]", printable(text_)));
  }
  return value / 100;
}

bool OptionValue::onOff() const {
  if (text_ != "on" && text_ != "off") {
    fail(fmt::format("'{}' is neither on nor off", printable(text_)));
  }
  return text_ == "on";
}

const std::string& OptionValue::path() const {
  if (text_.empty()) fail("the path is empty (leave the option out to write none)");
  // `--json " "` or "json = ' '" names a file no one meant: a slip, not a name.
  if (std::ranges::all_of(text_, [](unsigned char c) { return std::isspace(c) != 0; })) {
    fail(fmt::format("the path '{}' is only blanks", printable(text_)));
  }
  return text_;
}

std::uint64_t OptionValue::mebibytes(std::uint64_t min, std::uint64_t max) const {
  double mib = 0;
  if (!parseNumber(text_, mib) || mib <= 0) {
    fail(fmt::format("'{}' is not a positive number of MiB (e.g. 25, 0.5)", printable(text_)));
  }
  const double bytes = std::round(mib * static_cast<double>(1ull << 20));
  if (bytes < static_cast<double>(min) || bytes > static_cast<double>(max)) {
    fail(fmt::format("'{}' is out of range [{} B, {} GiB]", printable(text_), min, max >> 30));
  }
  return static_cast<std::uint64_t>(bytes);
}

std::vector<std::string> OptionValue::list() const {
  std::vector<std::string> items;
  std::string item;
  std::istringstream stream(text_);
  while (std::getline(stream, item, ',')) items.push_back(trimmed(item));
  if (items.empty()) fail("the list is empty");
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].empty()) fail(fmt::format("empty entry in '{}'", printable(text_)));
    if (std::find(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(i), items[i]) !=
        items.begin() + static_cast<std::ptrdiff_t>(i)) {
      fail(fmt::format("'{}' given twice", printable(items[i])));
    }
  }
  return items;
}

std::vector<std::uint64_t> OptionValue::byteList(std::uint64_t granule, std::uint64_t max) const {
  std::vector<std::uint64_t> sizes;
  for (const std::string& item : list()) {
    const std::uint64_t bytes = parseByteSize(std::string(option_), item);
    if (bytes < granule || bytes % granule != 0 || bytes > max) {
      fail(fmt::format("'{}' is not a multiple of {} B in [{} B, {} GiB]", printable(item), granule,
                       granule, max >> 30));
    }
    if (std::find(sizes.begin(), sizes.end(), bytes) != sizes.end()) {
      fail(fmt::format("'{}' is the same size as an earlier entry", printable(item)));
    }
    sizes.push_back(bytes);
  }
  return sizes;
}

}  // namespace splitstep
