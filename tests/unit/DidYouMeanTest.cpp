// A misspelt suite, option or config key is refused naming the closest valid name.
#include <gtest/gtest.h>

#include <array>
#include <span>
#include <string>

#include "OptionErrors.hpp"
#include "options/Spelling.hpp"

namespace splitstep {
namespace {

using testing::ConfigFile;
using testing::errorOf;

TEST(DidYouMean, EditDistanceCountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(editDistance("", ""), 0u);
  EXPECT_EQ(editDistance("", "abc"), 3u);
  EXPECT_EQ(editDistance("abc", ""), 3u);
  EXPECT_EQ(editDistance("matmul", "matmul"), 0u);
  EXPECT_EQ(editDistance("alreduce", "allreduce"), 1u);  // a letter left out
  EXPECT_EQ(editDistance("matmull", "matmul"), 1u);      // one too many
  EXPECT_EQ(editDistance("mebmw", "membw"), 1u);         // two letters swapped
  EXPECT_EQ(editDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(editDistance("flaw", "lawn"), 2u);
}

TEST(DidYouMean, SuggestsOnlyANameWithinASlipOfTheKeyboard) {
  constexpr std::array<std::string_view, 4> names = {"allreduce", "allgather", "matmul",
                                                     "max-time"};
  EXPECT_EQ(closestName("alreduce", names), "allreduce");
  EXPECT_EQ(closestName("max-tme", names), "max-time");
  EXPECT_EQ(closestName("bogus", names), std::nullopt);
  EXPECT_EQ(closestName("all", names), std::nullopt);  // a prefix is no slip: 6 edits away
  // Equally close: the first listed.
  constexpr std::array<std::string_view, 2> tied = {"ab", "ac"};
  EXPECT_EQ(closestName("aa", tied), "ab");
  EXPECT_EQ(didYouMean("alreduce", names), " (did you mean 'allreduce'?)");
  EXPECT_EQ(didYouMean("max-tme", names, "--"), " (did you mean '--max-time'?)");
  EXPECT_EQ(didYouMean("bogus", names), "");
}

TEST(DidYouMean, ANameAsFarInLengthAsTheSlipAllowsIsStillFound) {
  // Names are skipped by their length alone only where it puts them beyond the best so far:
  // three letters more than "matmul" are three edits, within a nine-letter word's allowance;
  // a closer name listed later still wins, and a name of the same length further away loses.
  constexpr std::array<std::string_view, 3> names = {"membw", "matmul", "matmulxyq"};
  EXPECT_EQ(closestName("matmulxyz", std::span(names).first(2)), "matmul");
  EXPECT_EQ(closestName("matmulxyz", names), "matmulxyq");
  EXPECT_EQ(closestName("matmulwxyz", std::span(names).first(2)), std::nullopt);  // 4 edits
  // A hostile word far longer than every name: none is close, none is aligned.
  EXPECT_EQ(closestName(std::string(100000, 'a'), names), std::nullopt);
}

TEST(DidYouMean, AMisspeltSuiteNamesTheClosestSuite) {
  EXPECT_EQ(errorOf({"alreduce"}),
            "unknown suite 'alreduce' (did you mean 'allreduce'?) (matmul, membw, allreduce, "
            "reduce_scatter, allgather, broadcast, alltoall, sendrecv, reduce, gather, scatter, "
            "hypercube, step)");
  EXPECT_EQ(errorOf({"matmul", "stpe"}).rfind("unknown suite 'stpe' (did you mean 'step'?)", 0),
            0u);
  EXPECT_EQ(errorOf({"xyzzy"}).find("did you mean"), std::string::npos);
}

TEST(DidYouMean, AMisspeltOptionNamesTheClosestOption) {
  EXPECT_EQ(errorOf({"--max-tme", "1s"}),
            "unrecognised option '--max-tme' (did you mean '--max-time'?)");
  EXPECT_EQ(errorOf({"--min-btyes", "8"}),
            "unrecognised option '--min-btyes' (did you mean '--min-bytes'?)");
  EXPECT_EQ(errorOf({"--hepl"}), "unrecognised option '--hepl' (did you mean '--help'?)");
  EXPECT_EQ(errorOf({"--bogus"}), "unrecognised option '--bogus'");
  // The test hooks are accepted but never suggested: users are not pointed to them.
  EXPECT_EQ(errorOf({"--test-stall-rnk", "1"}).find("did you mean"), std::string::npos);
}

TEST(DidYouMean, AMisspeltValueNamesTheClosestValue) {
  EXPECT_EQ(errorOf({"--step-models", "mlp,gtp2"}),
            "--step-models: unknown value 'gtp2' (did you mean 'gpt2'?) (mlp, resnet50, llama, "
            "vit-b16, gpt2, recsys)");
  EXPECT_EQ(errorOf({"--sync-modes", "overlapp"}),
            "--sync-modes: unknown value 'overlapp' (did you mean 'overlap'?) (none, sequential, "
            "overlap, single)");
  EXPECT_EQ(errorOf({"--collective-dtypes", "int8"}),
            "--collective-dtypes: unknown value 'int8' (fp32, bf16, fp16)");
}

TEST(DidYouMean, AMisspeltConfigKeyNamesTheClosestKey) {
  const ConfigFile config("max-tme = 1s\n");
  EXPECT_EQ(errorOf({"--config", config.path()}),
            config.path() + ": unrecognised option 'max-tme' (did you mean 'max-time'?)");
  // --config and --help are no keys of a config file.
  const ConfigFile help("hepl = 1\n");
  EXPECT_EQ(errorOf({"--config", help.path()}), help.path() + ": unrecognised option 'hepl'");
}

}  // namespace
}  // namespace splitstep
