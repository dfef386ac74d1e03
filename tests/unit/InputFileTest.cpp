#include "common/InputFile.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

namespace splitstep {
namespace {

constexpr auto kNoBound = std::numeric_limits<std::uintmax_t>::max();

class InputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "input-file.XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string problem(const std::string& p, std::uintmax_t bound = kNoBound) const {
    return inputFileProblem(p, bound, "a batch file").value_or("none");
  }
  void write(const std::string& name, std::size_t bytes) const {
    std::ofstream(path(name), std::ios::binary) << std::string(bytes, 'x');
  }

  std::filesystem::path dir_;
};

TEST_F(InputFileTest, AReadableFileWithinTheBoundHasNoProblem) {
  write("batch.pt", 1024);
  EXPECT_EQ(problem(path("batch.pt"), 1024), "none");
}

TEST_F(InputFileTest, EveryPathThatIsNotAReadableFileIsNamedForWhatItIs) {
  EXPECT_EQ(problem(""), "an empty path");
  EXPECT_EQ(problem(path("missing.pt")), "no such file");
  write("file", 1);
  EXPECT_EQ(problem(path("file") + "/below.pt"), "no such file");  // a file as a folder
  EXPECT_EQ(problem(dir_.string()), "is a directory, not a file");
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  EXPECT_EQ(problem(path("fifo")), "is a FIFO, not a file");
  EXPECT_EQ(problem("/dev/null"), "is a device, not a file");
  std::filesystem::create_symlink("b", path("a"));
  std::filesystem::create_symlink("a", path("b"));
  EXPECT_EQ(problem(path("a")), "a loop of symbolic links");
  std::filesystem::create_symlink("gone.pt", path("dangling"));
  EXPECT_EQ(problem(path("dangling")), "no such file");
}

TEST_F(InputFileTest, NamesAndPathsTooLongAreRefusedNotThrown) {
  EXPECT_EQ(problem(path(std::string(300, 'n'))), "a name too long for the file system");
  std::string deep = dir_.string();
  while (deep.size() <= 4096) deep += "/d";
  EXPECT_EQ(problem(deep), "a name too long for the file system");
}

TEST_F(InputFileTest, AFileOverTheBoundIsRefusedWithBothSizes) {
  write("big.pt", 3 * 1024);
  EXPECT_EQ(problem(path("big.pt"), 2 * 1024),
            "is 3.00 KiB, more than the 2.00 KiB a batch file may be");
}

TEST_F(InputFileTest, AnUnreadableFileSaysSo) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads every file";
  write("locked.pt", 1);
  std::filesystem::permissions(path("locked.pt"), std::filesystem::perms::none);
  EXPECT_EQ(problem(path("locked.pt")), "cannot be read (permission denied)");
}

}  // namespace
}  // namespace splitstep
