// samples.csv: one row per case and rank, flat columns for spreadsheets and pandas
// (docs/results-schema.md lists them); derived figures, the verdict and the wall times are the
// JSON's and the console's. Rewritten (atomically) after every case, so that a run that ends
// early keeps the rows of what it measured.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "report/Reporter.hpp"

namespace splitstep {

class CsvReporter final : public Reporter {
 public:
  explicit CsvReporter(std::string path) : path_(std::move(path)) {}
  void reportContext(const RunContext& context) override;
  void reportCase(const CaseResult& result) override;
  void finalize() override;
  // The rows so far; the JSON says why the run ended.
  void endEarly(const std::string& reason) override;
  std::string written() const override;

  // The columns before the case fields; a column per case field follows in the order first
  // seen (each family's in the order its schema declares them), then the rates' columns in the
  // order first seen, then the check, the stop reason and the telemetry columns.
  static const std::vector<std::string>& leadingColumns();
  static std::vector<std::string> trailingColumns();

 private:
  using Row = std::map<std::string, std::string>;  // by column; absent: an empty cell

  std::vector<std::string> columns() const;
  static std::string line(const Row& row, const std::vector<std::string>& columns);
  void write();

  std::string path_;
  std::vector<RankInfo> ranks_;
  std::vector<std::string> field_names_;  // in the order first seen
  std::vector<std::string> rate_names_;   // in the order first seen
  std::vector<Row> rows_;
  std::vector<std::string> printed_columns_;  // the columns lines_ were printed with
  std::vector<std::string> lines_;            // rows_ printed, in order
  bool ended_ = false;                        // finalize() or endEarly() wrote the last rows
};

// `field` as a CSV cell (RFC 4180): quoted where it holds a comma, a quote or a line break.
std::string csvField(const std::string& field);

}  // namespace splitstep
