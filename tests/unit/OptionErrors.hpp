// What the option tests of the help, the spelling and the contradictions share: the refusal of a
// command line, and a config file of the running test's own.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "TempPath.hpp"
#include "options/Options.hpp"
#include "report/OutputCatalogue.hpp"
#include "suites/SuiteCatalog.hpp"

namespace splitstep::testing {

// The UsageError message for `args` (over `preset`, if any), or "<no error>".
inline std::string errorOf(const std::vector<std::string>& args, std::string_view preset = {}) {
  try {
    parseCommandLine(args, suiteCatalog(), outputInfos(), preset);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "<no error>";
}

class ConfigFile {
 public:
  explicit ConfigFile(const std::string& content) : path_(tempPathForThisTest(".ini")) {
    std::ofstream(path_) << content;
  }
  ~ConfigFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace splitstep::testing
