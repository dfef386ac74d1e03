#include "report/OutputFiles.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ReportFixtures.hpp"
#include "TempPath.hpp"
#include "report/ChromeTrace.hpp"
#include "report/CsvReporter.hpp"
#include "report/JsonReporter.hpp"
#include "report/OutputCatalogue.hpp"

namespace splitstep {
namespace {

namespace fs = std::filesystem;

class OutputFiles : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(dir_); }
  void TearDown() override {
    fs::permissions(dir_, fs::perms::owner_all);
    fs::remove_all(dir_);
  }
  std::string file(const std::string& name, const std::string& content) const {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << content;
    return path.string();
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string contents(const std::string& path) {
    std::stringstream text;
    text << std::ifstream(path, std::ios::binary).rdbuf();
    return text.str();
  }

  fs::path dir_ = testing::tempPathForThisTest("");
};

TEST_F(OutputFiles, SplitstepsOwnFilesAreRecognisedEachByItsKind) {
  const std::string results = path("results.json");
  {
    JsonReporter reporter(results);
    reporter.reportContext(testing::twoRankContext());
    for (const CaseResult& c : testing::matmulCases()) reporter.reportCase(c);
    reporter.finalize();
  }
  const std::string rows = path("rows.csv");
  {
    CsvReporter reporter(rows);
    reporter.reportContext(testing::twoRankContext());
    for (const CaseResult& c : testing::matmulCases()) reporter.reportCase(c);
    reporter.finalize();
  }
  const std::string trace = file("trace.json", chromeTrace({}, {}, "splitstep").dump());
  const OutputKind& results_kind = findOutput("json")->kind;
  const OutputKind& rows_kind = findOutput("csv")->kind;
  const OutputKind& trace_kind = findOutput("trace")->kind;
  EXPECT_TRUE(holdsOnlyOwnOutput(results, results_kind));
  EXPECT_TRUE(holdsOnlyOwnOutput(rows, rows_kind));
  EXPECT_TRUE(holdsOnlyOwnOutput(trace, trace_kind));
  // One kind does not replace another: a --json pointed at last run's trace keeps the trace.
  EXPECT_FALSE(holdsOnlyOwnOutput(trace, results_kind));
  EXPECT_FALSE(holdsOnlyOwnOutput(results, trace_kind));
  EXPECT_FALSE(holdsOnlyOwnOutput(results, rows_kind));
  // Nothing is lost where there is nothing, or an empty file (mktemp's).
  EXPECT_TRUE(holdsOnlyOwnOutput(path("missing.json"), results_kind));
  EXPECT_TRUE(holdsOnlyOwnOutput(file("empty.json", ""), results_kind));
}

TEST_F(OutputFiles, AnythingElseIsNotSplitstepsToReplace) {
  const fs::path self = fs::read_symlink("/proc/self/exe");
  const std::string executable = path("splitstep");
  fs::copy_file(self, executable);
  const std::string readme = file("README.md", "# notes\nsuite,family,case\n");
  const std::string config = file("run.ini", "suites = allreduce\njson = out.json\n");
  // Near misses: another tool's schema, splitstep's schema one level down, a CSV whose header
  // only starts like splitstep's.
  const std::string other_schema = file("other.json", R"({"schema": "nvbench/1"})");
  const std::string nested = file("nested.json", R"({"data": {"schema": "splitstep.results/2"}})");
  const std::string top_level_trace = file("t.json", R"({"schema": "splitstep.trace/1"})");
  const std::string short_header = file("short.csv", "suite,family,case\n");
  const std::string longer_name = file("long.csv",
                                       "suite,family,case,series,part_of,detail,"
                                       "rank,host,device,device_name,skipped,unit,"
                                       "clock,method,samples,loops,median,median_"
                                       "low,median_high,min,max,mean,stddev,noises\n");
  for (const std::string& other : {executable, readme, config, other_schema, nested}) {
    EXPECT_FALSE(holdsOnlyOwnOutput(other, findOutput("json")->kind)) << other;
    EXPECT_FALSE(holdsOnlyOwnOutput(other, findOutput("trace")->kind)) << other;
    EXPECT_FALSE(holdsOnlyOwnOutput(other, findOutput("csv")->kind)) << other;
  }
  EXPECT_FALSE(holdsOnlyOwnOutput(top_level_trace, findOutput("trace")->kind));
  EXPECT_FALSE(holdsOnlyOwnOutput(short_header, findOutput("csv")->kind));
  EXPECT_FALSE(holdsOnlyOwnOutput(longer_name, findOutput("csv")->kind));
}

TEST_F(OutputFiles, ForeignFilesAreRefusedUnlessOverwriteIsGiven) {
  const std::string readme = file("README", "keep me\n");
  const std::vector<OutputPath> outputs = {{"--json", readme, findOutput("json")->kind}};
  EXPECT_EQ(outputRefusal(outputs, {}, false),
            "--json: '" + readme +
                "' holds something other than splitstep's results: pass --overwrite to replace it");
  EXPECT_EQ(outputRefusal(outputs, {}, true), std::nullopt);
  EXPECT_EQ(contents(readme), "keep me\n") << "the check leaves the file as it was";
}

TEST_F(OutputFiles, OutputsAreDistinctFromEachOtherAndFromInputsAsResolvedFiles) {
  const std::string config = file("run.ini", "suites = allreduce\n");
  const std::string out = path("out");
  EXPECT_EQ(outputRefusal({{"--json", out, findOutput("json")->kind},
                           {"--csv", out, findOutput("csv")->kind}},
                          {}, true),
            "--csv: '" + out + "' is also the --json file: each output needs a file of its own");
  // Spelled differently, still one file: before it exists (the resolved path) ...
  const std::string dotted = (dir_ / "." / "sub" / ".." / "out").string();
  EXPECT_TRUE(sameFile(out, dotted));
  EXPECT_NE(outputRefusal({{"--json", out, findOutput("json")->kind},
                           {"--trace", dotted, findOutput("trace")->kind}},
                          {}, true),
            std::nullopt);
  // ... and after (the inode: a hard link and a symbolic link to the config).
  fs::create_hard_link(config, path("hard.ini"));
  fs::create_symlink(config, path("soft.ini"));
  for (const std::string& alias : {config, path("hard.ini"), path("soft.ini")}) {
    EXPECT_EQ(
        outputRefusal({{"--json", alias, findOutput("json")->kind}}, {{"--config", config}}, true),
        "--json: '" + alias + "' is the --config file, which the run reads (it would be replaced)");
  }
  EXPECT_FALSE(sameFile(config, path("other.ini")));
  EXPECT_EQ(outputRefusal({{"--json", out, findOutput("json")->kind},
                           {"--csv", path("r.csv"), findOutput("csv")->kind}},
                          {{"--config", config}}, false),
            std::nullopt);
  EXPECT_EQ(outputRefusal({{"--json", "", findOutput("json")->kind}}, {}, false),
            "--json: '' is empty");
}

TEST_F(OutputFiles, ALockedPathIsRefusedNamingItsHolderUntilTheHolderEnds) {
  const std::string out = path("out.json");
  const std::string lock_path = OutputLock::lockPathOf(out);
  // A lock is held per open file: the holder is another process, as a second job would be.
  int ready[2];
  int release[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(release), 0);
  const pid_t holder = fork();
  ASSERT_GE(holder, 0);
  if (holder == 0) {
    auto lock = OutputLock::take(out, {getpid(), "node7", "77"});
    const char held = std::holds_alternative<OutputLock>(lock) ? 'y' : 'n';
    (void)!write(ready[1], &held, 1);
    char wait = 0;
    (void)!read(release[0], &wait, 1);
    _exit(0);  // the kernel gives the lock back
  }
  char held = 0;
  ASSERT_EQ(read(ready[0], &held, 1), 1);
  ASSERT_EQ(held, 'y');
  auto second = OutputLock::take(out, {getpid(), "node8", ""});
  ASSERT_TRUE(std::holds_alternative<std::string>(second));
  EXPECT_EQ(std::get<std::string>(second),
            fmt::format("is being written by another run (pid {} on node7, Slurm job 77)", holder));
  // The holder dies without giving the lock back: the lock is free, its stale file replaced.
  ASSERT_EQ(write(release[1], "x", 1), 1);
  int status = 0;
  ASSERT_EQ(waitpid(holder, &status, 0), holder);
  {
    auto third = OutputLock::take(out, {getpid(), "node8", ""});
    ASSERT_TRUE(std::holds_alternative<OutputLock>(third)) << std::get<std::string>(third);
    EXPECT_EQ(std::get<OutputLock>(third).takenOver(),
              fmt::format("pid {} on node7, Slurm job 77", holder));
    EXPECT_EQ(contents(lock_path),
              fmt::format("splitstep output lock: pid={} host=node8 slurm_job=-\n", getpid()));
  }
  EXPECT_FALSE(fs::exists(lock_path)) << "a lock given back removes its file";
  for (int fd : {ready[0], ready[1], release[0], release[1]}) close(fd);
}

TEST_F(OutputFiles, ALockFileSplitstepDidNotWriteIsLeftAlone) {
  const std::string out = path("notes");
  file("notes.lock", "my own notes\n");
  auto lock = OutputLock::take(out, {getpid(), "node7", ""});
  ASSERT_TRUE(std::holds_alternative<std::string>(lock));
  EXPECT_EQ(std::get<std::string>(lock), "cannot be locked: '" + out +
                                             ".lock' is not a lock file of splitstep's: remove "
                                             "it or write elsewhere");
  EXPECT_EQ(contents(path("notes.lock")), "my own notes\n");
}

TEST_F(OutputFiles, ALockFileThatIsAHardLinkIsRefusedAndLeftAlone) {
  const std::string out = path("run.json");
  const std::string other = file("empty-of-someone-else", "");
  fs::create_hard_link(other, path("run.json.lock"));
  auto lock = OutputLock::take(out, {getpid(), "node7", ""});
  ASSERT_TRUE(std::holds_alternative<std::string>(lock));
  EXPECT_EQ(std::get<std::string>(lock), "cannot be locked: '" + out +
                                             ".lock' is a hard link to another file: remove it "
                                             "or write elsewhere");
  EXPECT_EQ(contents(other), "");
}

TEST_F(OutputFiles, AProfileDirectoryIsCheckedBeforeTheRun) {
  const std::string regular = file("regular", "x");
  EXPECT_EQ(whyNoOutputDirectory(dir_.string()), std::nullopt);
  EXPECT_EQ(whyNoOutputDirectory(path("new/deeper")), std::nullopt) << "made by the run";
  EXPECT_FALSE(fs::exists(path("new"))) << "the check makes nothing";
  EXPECT_EQ(whyNoOutputDirectory(regular), "is not a directory");
  EXPECT_EQ(whyNoOutputDirectory(regular + "/sub/dir"),
            "is under '" + regular + "', which is not a directory");
  // Root may write anywhere: only where this process may not write is the refusal testable.
  if (geteuid() != 0) {
    fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_EQ(whyNoOutputDirectory(path("new")),
              "cannot be made in '" + dir_.string() + "': it is not writable");
    fs::permissions(dir_, fs::perms::owner_all);
  }
  EXPECT_EQ(whyNoOutputDirectory("/proc/self/splitstep-profiles"),
            "cannot be made in '/proc/self': it is not writable");
  // Where the permissions allow it and the kernel does not (root in /proc, a name over
  // NAME_MAX), the directory is tried, and nothing is left.
  EXPECT_EQ(
      whyNoOutputDirectory("/proc/splitstep-profiles"),
      "cannot be made: " + std::make_error_code(std::errc::no_such_file_or_directory).message());
  EXPECT_EQ(whyNoOutputDirectory(path("new/" + std::string(300, 'n'))),
            "cannot be made: " + std::make_error_code(std::errc::filename_too_long).message());
  EXPECT_EQ(whyNoOutputDirectory(path("new/../other")), std::nullopt);
  EXPECT_FALSE(fs::exists(path("new")) || fs::exists(path("other"))) << "the check leaves nothing";
}

}  // namespace
}  // namespace splitstep
