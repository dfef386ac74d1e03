#include "report/AtomicFile.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

TEST(AtomicFile, ALinkPlantedWhereATemporaryWouldBeIsNeverWrittenThrough) {
  const auto dir = testing::tempPathForThisTest("");
  std::filesystem::create_directories(dir);
  const auto path = dir / "out.json";
  const auto victim = dir / "victim";
  std::ofstream(victim) << "keep me";
  // The name the temporary file had before it was drawn at random: PATH.tmp.<pid>.
  std::filesystem::create_symlink(victim, path.string() + ".tmp." + std::to_string(getpid()));
  writeFileAtomically(path.string(), "new content");
  writeFileAtomically(path.string(), "newer content");
  std::stringstream kept;
  kept << std::ifstream(victim).rdbuf();
  EXPECT_EQ(kept.str(), "keep me");
  std::stringstream read;
  read << std::ifstream(path).rdbuf();
  EXPECT_EQ(read.str(), "newer content");
  EXPECT_FALSE(std::filesystem::is_symlink(path));
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

TEST(AtomicFile, TargetsThatCannotOrMustNotBeWrittenAreFoundBeforeTheRun) {
  const auto dir = testing::tempPathForThisTest("");
  std::filesystem::create_directories(dir);
  const auto file = dir / "out.json";
  EXPECT_EQ(whyNotWritable(file.string()), std::nullopt);
  EXPECT_FALSE(std::filesystem::exists(file)) << "the check leaves nothing behind";
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            0);
  EXPECT_EQ(whyNotWritable(dir.string()), "is a directory");
  EXPECT_EQ(whyNotWritable("/dev/null"), "is not a regular file");
  EXPECT_EQ(whyNotWritable((dir / "no-such-dir" / "out.json").string()),
            "is in a directory that does not exist");
  EXPECT_EQ(whyNotWritable(""), "is empty");
  // /proc takes no new files, even from root.
  const auto proc = whyNotWritable("/proc/splitstep-out.json");
  ASSERT_TRUE(proc.has_value());
  EXPECT_EQ(proc->rfind("cannot be created: ", 0), 0u) << *proc;
  // A file nobody may write is refused even where root could replace it.
  std::ofstream(file) << "keep";
  std::filesystem::permissions(file, std::filesystem::perms::owner_read);
  EXPECT_EQ(whyNotWritable(file.string()), "is read-only (it would be replaced)");
  std::filesystem::permissions(file, std::filesystem::perms::owner_all);
  EXPECT_EQ(whyNotWritable(file.string()), std::nullopt);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace splitstep
