// A temporary path of the running test's own: ctest runs tests in parallel processes.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace splitstep::testing {

inline std::filesystem::path tempPathForThisTest(const std::string& suffix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::filesystem::temp_directory_path() /
         (std::string("splitstep-") + info->test_suite_name() + "-" + info->name() + "-" +
          std::to_string(getpid()) + suffix);
}

}  // namespace splitstep::testing
