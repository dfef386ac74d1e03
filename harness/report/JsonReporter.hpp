// results.json: run metadata, the plan, every case with every rank's samples, and the figures
// derived from several cases (docs/results-schema.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/Reporter.hpp"

namespace splitstep {

inline constexpr const char* kResultsSchema = "splitstep.results/1";

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(std::string path) : path_(std::move(path)) {}
  void reportContext(const RunContext& context) override;
  void reportCase(const CaseResult& result) override;
  void reportDerived(const DerivedResult& derived) override;
  // Writes the file (atomically).
  void finalize() override;

 private:
  std::string path_;
  nlohmann::json document_;
  std::vector<RankInfo> ranks_;  // to group each case's ranks by node
};

}  // namespace splitstep
