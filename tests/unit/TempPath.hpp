// A temporary path of the running test's own: ctest runs tests in parallel processes.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace splitstep::testing {

inline std::filesystem::path tempPathForThisTest(const std::string& suffix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::filesystem::temp_directory_path() /
         (std::string("splitstep-") + info->test_suite_name() + "-" + info->name() + "-" +
          std::to_string(getpid()) + suffix);
}

// A test with a folder of its own, made before it and removed after it with what it holds.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  static std::string contents(const std::filesystem::path& path) {
    std::stringstream text;
    text << std::ifstream(path).rdbuf();
    return text.str();
  }
  std::filesystem::path dir_ = tempPathForThisTest("");
};

}  // namespace splitstep::testing
