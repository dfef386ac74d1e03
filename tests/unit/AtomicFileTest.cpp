#include "report/AtomicFile.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "TempPath.hpp"

namespace splitstep {
namespace {

TEST(AtomicFile, ReplacesTheFileAndLeavesNoTemporary) {
  const auto dir = testing::tempPathForThisTest("");
  std::filesystem::create_directories(dir);
  const auto path = dir / "out.json";
  std::ofstream(path) << "old";
  writeFileAtomically(path.string(), "new content");
  std::stringstream read;
  read << std::ifstream(path).rdbuf();
  EXPECT_EQ(read.str(), "new content");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            1);
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, MissingDirectoryThrowsNamingThePath) {
  try {
    writeFileAtomically("/nonexistent-dir/out.json", "x");
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/out.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace splitstep
