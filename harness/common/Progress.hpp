// Where a long run stands, for whoever shows it: the run announces how many cases it holds, the
// suites each case as they reach it (through CaseRunner), and the run its end. It knows nothing
// of how, or whether, it is shown.
#pragma once

#include <cstddef>
#include <string>

namespace splitstep {

class Progress {
 public:
  virtual ~Progress() = default;
  // The run will reach `cases` cases in all.
  virtual void start(std::size_t cases) = 0;
  // The next case, `name` of `suite`, begins (to be measured or skipped).
  virtual void caseStarted(const std::string& suite, const std::string& name) = 0;
  // Other output is about to reach the same terminal (a case's results as they come): what is
  // shown is erased, and the next case shows it again.
  virtual void clear() = 0;
  // Every case is done.
  virtual void finish() = 0;
};

}  // namespace splitstep
