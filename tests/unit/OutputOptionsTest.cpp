// The output options: paths that must be given whole, and --overwrite.
#include <gtest/gtest.h>

#include "OptionErrors.hpp"

#include <filesystem>
#include <fstream>

#include "TempPath.hpp"
#include "options/Options.hpp"
#include "report/OutputCatalogue.hpp"
#include "suites/SuiteCatalog.hpp"

namespace splitstep {
namespace {

using testing::errorOf;

TEST(OutputOptions, AnEmptyPathIsRefusedNotTakenForNoFile) {
  for (const char* option : {"--json", "--csv", "--trace", "--metrics", "--torch-profile"}) {
    EXPECT_EQ(errorOf({option, ""}),
              std::string(option) + ": the path is empty (leave the option out to write none)");
  }
  // A path of blanks alone is a slip too: it would write a file named ' '.
  EXPECT_EQ(errorOf({"--json", " "}), "--json: the path ' ' is only blanks");
  EXPECT_EQ(errorOf({"--model-file", "\t "}), "--model-file: the path '\\x09 ' is only blanks");
  // The same in a config file, where "json =" is as easily written.
  const auto path = testing::tempPathForThisTest(".ini");
  std::ofstream(path) << "json =\n";
  EXPECT_EQ(errorOf({"--config", path.string()}),
            "--json: the path is empty (leave the option out to write none)");
  // The file's slip is refused even where the command line gives the path.
  EXPECT_EQ(errorOf({"--config", path.string(), "--json", "r.json"}),
            "--json: the path is empty (leave the option out to write none)");
  std::filesystem::remove(path);
}

TEST(OutputOptions, LeftOutThereIsNoFileAndOverwriteIsOff) {
  const ParsedCommand parsed = parseCommandLine({}, suiteCatalog(), outputInfos());
  // Every output of the catalogue is in the plan, with no path.
  ASSERT_EQ(parsed.plan.output.files.size(), outputCatalogue().size());
  for (const OutputFile& file : parsed.plan.output.files)
    EXPECT_TRUE(file.path.empty()) << file.name;
  EXPECT_FALSE(parsed.plan.output.timelines);
  EXPECT_TRUE(parsed.plan.step.torch_profile_dir.empty());
  EXPECT_FALSE(parsed.plan.output.overwrite);
  EXPECT_TRUE(
      parseCommandLine({"--overwrite"}, suiteCatalog(), outputInfos()).plan.output.overwrite);
}

}  // namespace
}  // namespace splitstep
