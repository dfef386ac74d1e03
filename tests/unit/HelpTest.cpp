// --help reads like a manual: the options by section, the test hooks left out, examples that
// parse, the exit statuses, no line over 100 columns.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "options/OptionTable.hpp"
#include "options/Options.hpp"
#include "options/Usage.hpp"
#include "report/OutputCatalogue.hpp"
#include "suites/SuiteCatalog.hpp"

namespace splitstep {
namespace {

std::string help() { return parseCommandLine({"--help"}, suiteCatalog(), outputInfos()).help; }

// Where the heading "TITLE:" stands on a line of its own.
std::size_t heading(const std::string& text, const std::string& title) {
  return text.find("\n" + title + ":\n");
}

TEST(Help, ListsTheSectionsInOrderThenTheExamplesAndTheExitStatus) {
  const std::string text = help();
  const std::vector<std::string> titles = {
      "Suites (default: matmul membw allreduce; all: every "
      "suite)",
      "Run",
      "Measurement (every suite)",
      "matmul suite",
      "membw suite",
      "Collective suites (allreduce, reduce_scatter, ...)",
      "step suite",
      "step suite: the models' shapes (each model reads "
      "its own)",
      "Projection (analysis)",
      "Outputs",
      "Faults",
      "Presets (configs/, for --config)",
      "Examples",
      "Environment",
      "Files",
      "Exit status"};
  std::size_t last = 0;
  for (const std::string& title : titles) {
    const std::size_t at = heading(text, title);
    ASSERT_NE(at, std::string::npos) << title;
    EXPECT_GT(at, last) << title;
    last = at;
  }
}

// The presets section is the configs folder: a preset added there and not here fails, and so
// does one listed that is gone.
TEST(Help, ListsEveryPresetOfTheConfigsFolderWithALine) {
  std::set<std::string> folder;
  for (const auto& entry : std::filesystem::directory_iterator(SPLITSTEP_CONFIGS_DIR)) {
    if (entry.path().extension() == ".ini") folder.insert(entry.path().filename().string());
  }
  std::set<std::string> listed;
  const std::string text = help();
  for (const HelpEntry& preset : presetEntries()) {
    listed.insert(std::string(preset.name));
    EXPECT_FALSE(preset.meaning.empty()) << preset.name;
    EXPECT_NE(text.find("\n  " + std::string(preset.name) + "\n"), std::string::npos)
        << preset.name;
  }
  EXPECT_EQ(listed, folder);
}

TEST(Help, NamesTheEnvironmentAndTheFiles) {
  const std::string text = help();
  const std::size_t environment = heading(text, "Environment");
  const std::size_t files = heading(text, "Files");
  ASSERT_NE(environment, std::string::npos);
  ASSERT_NE(files, std::string::npos);
  for (const std::string name : {"CUDA_VISIBLE_DEVICES", "SLURM_JOB_ID", "NCCL_PROFILER_PLUGIN"}) {
    const std::size_t at = text.find(name, environment);
    EXPECT_TRUE(at != std::string::npos && at < files) << name;
  }
  for (const std::string name : {"--json", "--config FILE.ini", "--model-file"}) {
    EXPECT_NE(text.find("\n  " + name, files), std::string::npos) << name;
  }
}

TEST(Help, EachOptionStandsInItsOwnSection) {
  const std::string text = help();
  const std::vector<OptionSection> sections = optionSections(outputInfos());
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const std::size_t begin = heading(text, sections[i].title);
    const std::size_t end =
        i + 1 < sections.size() ? heading(text, sections[i + 1].title) : heading(text, "Examples");
    ASSERT_NE(begin, std::string::npos) << sections[i].title;
    const std::string part = text.substr(begin, end - begin);
    for (const OptionSpec& spec : sections[i].options) {
      const bool listed = part.find("\n  --" + spec.name + " ") != std::string::npos ||
                          part.find("\n  --" + spec.name + "\n") != std::string::npos;
      EXPECT_EQ(listed, !spec.hidden) << sections[i].title << ": --" << spec.name;
    }
  }
  // --help, --version and --config lead the run section.
  const std::size_t run = heading(text, "Run");
  EXPECT_LT(run, text.find("-h [ --help ]"));
  EXPECT_LT(text.find("--config arg"), heading(text, "Measurement (every suite)"));
}

TEST(Help, NoLineIsWiderThanAHundredColumnsOrEndsInASpace) {
  std::istringstream lines(help());
  std::size_t count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    EXPECT_LE(line.size(), 100u) << line;
    EXPECT_TRUE(line.empty() || line.back() != ' ') << line;
  }
  EXPECT_GT(count, 100u);
}

TEST(Help, TheExamplesAreRealCommandLines) {
  const std::string text = help();
  const std::span<const UsageExample> examples = usageExamples();
  EXPECT_GE(examples.size(), 5u);
  EXPECT_LE(examples.size(), 8u);
  std::size_t runs = 0;
  for (const UsageExample& example : examples) {
    EXPECT_NE(text.find("\n  " + std::string(example.command) + "\n      "), std::string::npos)
        << example.command;
    // A splitstep command line parses into a run, its preset read from configs/.
    std::istringstream words{std::string(example.command)};
    std::vector<std::string> args;
    bool after_binary = false;
    for (std::string word; words >> word;) {
      if (after_binary) {
        if (word.starts_with("configs/"))
          word = std::string(SPLITSTEP_CONFIGS_DIR) + word.substr(7);
        args.push_back(word);
      }
      after_binary = after_binary || word == "splitstep";
    }
    if (!after_binary) continue;
    ++runs;
    SCOPED_TRACE(example.command);
    ParsedCommand parsed;
    ASSERT_NO_THROW(parsed = parseCommandLine(args, suiteCatalog(), outputInfos()));
    EXPECT_EQ(parsed.action, ParsedCommand::Action::Run);
  }
  EXPECT_GE(runs, 5u);
  // The default run, the CPU, a sweep like nccl-tests', a zoo model, Slurm, and the report.
  for (const char* part : {"mpirun -np 8 splitstep\n", "--config configs/cpu-quick.ini",
                           "--min-bytes 8 --max-bytes 8G --step-factor 2", "--step-models gpt2",
                           "sbatch ", "--json results.json", "splitstep-analysis report"}) {
    EXPECT_NE(text.find(part), std::string::npos) << part;
  }
}

TEST(Help, TheExitStatusesAreEveryOneThatSplitstepUses) {
  const std::string text = help();
  // 0 done, 1 wrong elements (derived/RunStatus) or a failure after the start
  // (fault/FaultEnding, main's MPI_Abort), 2 refused at start (UsageError, StartupRefused), 3
  // below expected where asked (derived/RunStatus), 128+N a signal (fault/RunEnding, SignalWatch),
  // 138 the early warning (FaultHandling::endAtEarlyWarning: 128 + SIGUSR1).
  std::vector<std::string> statuses;
  for (const ExitStatus& status : exitStatuses()) {
    statuses.emplace_back(status.status);
    EXPECT_NE(text.find("\n  " + statuses.back() + " "), std::string::npos) << status.status;
  }
  EXPECT_EQ(statuses, (std::vector<std::string>{"0", "1", "2", "3", "128+N", "138"}));
  const std::size_t section = heading(text, "Exit status");
  for (const char* word : {"SIGINT", "SIGTERM", "SIGHUP", "SIGUSR1", "--timeout", "130", "143"}) {
    EXPECT_NE(text.find(word, section), std::string::npos) << word;
  }
}

TEST(Help, SaysHowTheCpuDefaultIsChosen) {
  // The help's words, whatever line each was wrapped onto.
  std::istringstream words(help());
  std::string text;
  for (std::string word; words >> word;) text += word + ' ';
  EXPECT_NE(text.find("--device arg (=auto) auto (one GPU per rank if any; else the CPU, with the "
                      "CPU preset), cuda, cpu (with the CPU preset)"),
            std::string::npos);
}

}  // namespace
}  // namespace splitstep
