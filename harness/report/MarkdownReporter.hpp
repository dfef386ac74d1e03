// --markdown FILE: the cases as a Markdown table, to paste into an issue, a pull request or a
// wiki page: each case's median on its slowest rank with the 95% interval of that median, the
// spread of its samples there and its rates. Rewritten (atomically) after every case, so that a
// run that ends early keeps what it measured; the last line says how the run ended.
#pragma once

#include <string>
#include <vector>

#include "report/Reporter.hpp"

namespace splitstep {

// The file's first line: how a file splitstep wrote is told from any other Markdown.
inline constexpr const char* kMarkdownSchema = "<!-- splitstep.markdown/1 -->";

class MarkdownReporter final : public Reporter {
 public:
  explicit MarkdownReporter(std::string path) : path_(std::move(path)) {}
  void reportContext(const RunContext& context) override;
  void reportCase(const CaseResult& result) override;
  void finalize() override;
  void endEarly(const std::string& reason) override;
  std::string written() const override;

 private:
  void write() const;

  std::string path_;
  std::string heading_;            // the command line and the ranks
  std::vector<std::string> rows_;  // a table row per case, in the order measured
  std::string ended_;              // empty until the run ended
};

}  // namespace splitstep
