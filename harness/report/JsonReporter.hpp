// results.json: run metadata, the plan, every case with every rank's samples, and the figures
// derived from several cases (docs/results-schema.md). Rewritten (atomically) after every case
// with "complete": false, so that a run that ends early keeps what it measured; "ended" says
// how it ended.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/Reporter.hpp"

namespace splitstep {

inline constexpr const char* kResultsSchema = "splitstep.results/2";

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(std::string path) : path_(std::move(path)) {}
  void reportContext(const RunContext& context) override;
  void reportCase(const CaseResult& result) override;
  void reportDerived(const DerivedResult& derived) override;
  // Written with the next case, or at the end.
  void reportVerdict(const std::vector<NodeVerdict>& verdicts) override;
  // Written with the next case, or at the end.
  void reportWallTimes(const RunWallTimes& wall) override;
  void finalize() override;
  void endEarly(const std::string& reason) override;
  std::string written() const override;

 private:
  void write() const;

  std::string path_;
  nlohmann::json document_;              // everything but the cases
  std::vector<std::string> case_texts_;  // each case, printed once, indented to its depth
  std::vector<RankInfo> ranks_;          // to group each case's ranks by node
  bool ended_ = false;                   // finalize() or endEarly() wrote the last version
};

}  // namespace splitstep
