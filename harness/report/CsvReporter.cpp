#include "report/CsvReporter.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cases/CaseCatalogue.hpp"
#include "report/AtomicFile.hpp"

namespace splitstep {
namespace {

std::string number(double value) { return fmt::format("{}", value); }

void addOnce(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

// "power cap=0.85;idle=0.02": each clock limit that held, with the share of readings.
std::string joinedLimits(const std::map<std::string, double>& limits) {
  std::string text;
  for (const auto& [name, share] : limits) {
    if (!text.empty()) text += ';';
    text += name + '=' + number(share);
  }
  return text;
}

std::string quantityColumn(std::string_view quantity, std::string_view statistic) {
  return fmt::format("{}_{}", quantity, statistic);
}

}  // namespace

std::string csvField(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

const std::vector<std::string>& CsvReporter::leadingColumns() {
  static const std::vector<std::string> columns = {
      "suite",  "family",      "case",        "series", "part_of", "detail", "rank",    "host",
      "device", "device_name", "skipped",     "unit",   "clock",   "method", "samples", "loops",
      "median", "median_low",  "median_high", "min",    "max",     "mean",   "stddev",  "noise"};
  return columns;
}

std::vector<std::string> CsvReporter::trailingColumns() {
  std::vector<std::string> columns = {"checked", "wrong", "stop_reason", "telemetry_readings"};
  for (const auto& [quantity, name] : EnumNames<TelemetryQuantity>::values) {
    for (const char* statistic : {"min", "mean", "max"}) {
      columns.push_back(quantityColumn(name, statistic));
    }
  }
  columns.emplace_back("clock_limits");
  return columns;
}

void CsvReporter::reportContext(const RunContext& context) { ranks_ = context.ranks; }

void CsvReporter::reportCase(const CaseResult& result) {
  for (const RateValue& rate : result.rates) addOnce(rate_names_, rate.name);
  Row common = {{"suite", result.suite},
                {"family", result.fields.family},
                {"case", result.case_name},
                {"series", result.series},
                {"part_of", result.part_of},
                {"detail", result.detail ? "true" : "false"},
                {"unit", result.unit},
                {"clock", result.clock},
                {"skipped", result.skipped() ? "true" : "false"}};
  // In the order the case's schema declares its fields, where it is known.
  if (const CaseFamily* family = findFamily(result.fields.family)) {
    for (const FieldSpec& spec : family->fields) {
      if (result.fields.values.contains(spec.name)) addOnce(field_names_, std::string(spec.name));
    }
  }
  for (const auto& [name, value] : result.fields.values) {
    addOnce(field_names_, name);
    common[name] = fieldText(value);
  }
  if (result.skipped()) {
    rows_.push_back(common);
    write();
    return;
  }
  for (const RankResult& r : result.ranks) {
    Row row = common;
    row["rank"] = std::to_string(r.rank);
    if (static_cast<std::size_t>(r.rank) < ranks_.size()) {
      const RankInfo& info = ranks_[static_cast<std::size_t>(r.rank)];
      row["host"] = info.host;
      row["device"] = info.device;
      row["device_name"] = info.device_name;
    }
    const Summary& s = r.summary;
    row["method"] = r.measurement.method;
    row["samples"] = std::to_string(s.n);
    row["loops"] = std::to_string(r.measurement.loops);
    row["median"] = number(s.median);
    row["median_low"] = number(r.median_ci.low);
    row["median_high"] = number(r.median_ci.high);
    row["min"] = number(s.min);
    row["max"] = number(s.max);
    row["mean"] = number(s.mean);
    row["stddev"] = number(s.stddev);
    row["noise"] = number(r.measurement.noise);
    // The case's rates are at the across-rank median; a rate is amount / time, so this rank's
    // is the same rate scaled by the ratio of the medians.
    for (const RateValue& rate : result.rates) {
      if (s.median > 0) row[rate.name] = number(rate.value * result.across.median / s.median);
    }
    std::uint64_t checked = 0;
    std::uint64_t wrong = 0;
    for (const Check& check : r.checks) {
      checked += check.checked;
      wrong += check.wrong;
    }
    row["checked"] = std::to_string(checked);
    row["wrong"] = std::to_string(wrong);
    row["stop_reason"] = r.measurement.stop_reason;
    if (r.telemetry) {
      row["telemetry_readings"] = std::to_string(r.telemetry->readings);
      for (const auto& [name, range] : r.telemetry->ranges) {
        row[quantityColumn(name, "min")] = number(range.min);
        row[quantityColumn(name, "mean")] = number(range.mean);
        row[quantityColumn(name, "max")] = number(range.max);
      }
      row["clock_limits"] = joinedLimits(r.telemetry->clock_limits);
    }
    rows_.push_back(std::move(row));
  }
  write();
}

void CsvReporter::finalize() {
  write();
  ended_ = true;
}

void CsvReporter::endEarly(const std::string&) {
  write();
  ended_ = true;
}

std::string CsvReporter::written() const {
  return ended_ ? fmt::format("rows written to {}\n", path_) : std::string();
}

std::vector<std::string> CsvReporter::columns() const {
  std::vector<std::string> columns = leadingColumns();
  columns.insert(columns.end(), field_names_.begin(), field_names_.end());
  columns.insert(columns.end(), rate_names_.begin(), rate_names_.end());
  const std::vector<std::string> trailing = trailingColumns();
  columns.insert(columns.end(), trailing.begin(), trailing.end());
  return columns;
}

std::string CsvReporter::line(const Row& row, const std::vector<std::string>& columns) {
  std::string text;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) text += ',';
    const auto it = row.find(columns[i]);
    if (it != row.end()) text += csvField(it->second);
  }
  return text + '\n';
}

void CsvReporter::write() {
  const std::vector<std::string> all = columns();
  // Each row is printed once; a field or rate first seen adds a column, and every row is
  // printed again.
  if (all != printed_columns_) {
    lines_.clear();
    printed_columns_ = all;
  }
  for (std::size_t r = lines_.size(); r < rows_.size(); ++r) lines_.push_back(line(rows_[r], all));
  std::string text;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i > 0) text += ',';
    text += csvField(all[i]);
  }
  text += '\n';
  for (const std::string& printed : lines_) text += printed;
  writeFileAtomically(path_, text);
}

}  // namespace splitstep
