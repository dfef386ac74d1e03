// Settings that contradict each other are refused with one line naming both, wherever each came
// from: the command line, the config file, the CPU preset or the defaults.
#include <gtest/gtest.h>

#include "OptionErrors.hpp"
#include "options/CpuPreset.hpp"

namespace splitstep {
namespace {

using testing::ConfigFile;
using testing::errorOf;

TEST(OptionContradictions, MinTimeAboveMaxTime) {
  EXPECT_EQ(errorOf({"--min-time", "0.5s", "--max-time", "0.2s"}),
            "--min-time 500.0 ms is longer than --max-time 200.0 ms: every case would stop "
            "before it");
  EXPECT_EQ(errorOf({"--min-time", "20s"}),
            "--min-time 20.00 s is longer than --max-time 15.00 s (its default): every case "
            "would stop before it");
  const ConfigFile both("min-time = 2s\nmax-time = 1s\n");
  EXPECT_EQ(errorOf({"--config", both.path()}),
            "--min-time 2.000 s (from the config file) is longer than --max-time 1.000 s (from "
            "the config file): every case would stop before it");
  // The command line's value is the one judged: it replaces the file's.
  EXPECT_EQ(errorOf({"--config", both.path(), "--min-time", "0.5s"}), "<no error>");
  const ConfigFile max_only("max-time = 1s\n");
  EXPECT_EQ(errorOf({"--config", max_only.path(), "--min-time", "3s"}),
            "--min-time 3.000 s is longer than --max-time 1.000 s (from the config file): every "
            "case would stop before it");
  EXPECT_EQ(errorOf({"--min-time", "2s"}, cpuPreset()),
            "--min-time 2.000 s is longer than --max-time 1.000 s (the CPU preset's): every case "
            "would stop before it");
  // A fixed number of samples follows neither bound.
  EXPECT_EQ(errorOf({"--samples", "5", "--min-time", "2s", "--max-time", "1s"}), "<no error>");
  EXPECT_EQ(errorOf({"--min-time", "1s", "--max-time", "1s"}), "<no error>");
}

TEST(OptionContradictions, MinSampleTimeAboveMaxTime) {
  EXPECT_EQ(errorOf({"--min-sample-time", "2s", "--max-time", "1s"}),
            "--min-sample-time 2.000 s is longer than --max-time 1.000 s: one sample would "
            "outlast the case");
  EXPECT_EQ(errorOf({"--min-sample-time", "2s", "--max-time", "1s", "--samples", "3"}),
            "<no error>");
}

TEST(OptionContradictions, MinBytesAboveMaxBytes) {
  EXPECT_EQ(errorOf({"--min-bytes", "1M", "--max-bytes", "64K"}),
            "--min-bytes 1 MiB is larger than --max-bytes 64 KiB: the sweep would be empty");
  const ConfigFile sweep("min-bytes = 1M\nmax-bytes = 64K\n");
  EXPECT_EQ(errorOf({"--config", sweep.path()}),
            "--min-bytes 1 MiB (from the config file) is larger than --max-bytes 64 KiB (from the "
            "config file): the sweep would be empty");
  EXPECT_EQ(errorOf({"--config", sweep.path(), "--max-bytes", "4M"}), "<no error>");
}

TEST(OptionContradictions, LoopsAgainstTheFlushAndAutorange) {
  EXPECT_EQ(errorOf({"--l2-flush", "--loops", "8"}),
            "--l2-flush times one execution per sample: --loops 8 contradicts it");
  EXPECT_EQ(errorOf({"--l2-flush", "--loops", "1"}), "<no error>");
  EXPECT_EQ(errorOf({"--loops", "4", "--min-sample-time", "5ms"}),
            "--loops 4 fixes the executions per sample: autorange's --min-sample-time 5.000 ms "
            "would not be used");
  const ConfigFile autorange("min-sample-time = 5ms\n");
  EXPECT_EQ(errorOf({"--config", autorange.path(), "--loops", "4"}),
            "--loops 4 fixes the executions per sample: autorange's --min-sample-time 5.000 ms "
            "(from the config file) would not be used");
  EXPECT_EQ(errorOf({"--loops", "4"}), "<no error>");
}

TEST(OptionContradictions, FewerSamplesThanTheLeastSamples) {
  EXPECT_EQ(errorOf({"--samples", "5", "--min-samples", "10"}),
            "--samples 5 is fewer than --min-samples 10");
  EXPECT_EQ(errorOf({"--samples", "5"}), "<no error>");  // the default minimum is not in force
  EXPECT_EQ(errorOf({"--samples", "10", "--min-samples", "10"}), "<no error>");
}

TEST(OptionContradictions, AStragglerNeedsARankAndADelay) {
  EXPECT_EQ(errorOf({"--delay-rank", "1"}),
            "--delay-rank 1 delays nobody without a --delay-ms above 0");
  EXPECT_EQ(errorOf({"--delay-ms", "5"}), "--delay-ms 5 delays nobody without a --delay-rank");
  EXPECT_EQ(errorOf({"--delay-rank", "1", "--delay-ms", "5"}), "<no error>");
}

// A built-in model makes its own batch: a batch file without an archive would go unread.
TEST(OptionContradictions, BatchFileWithoutModelFile) {
  const std::string refusal =
      "--batch-file: the batch of an exported model, goes with --model-file";
  EXPECT_EQ(errorOf({"--batch-file", "batch.pt"}), refusal);
  const ConfigFile file("batch-file = batch.pt\n");
  EXPECT_EQ(errorOf({"--config", file.path()}), refusal);
  EXPECT_EQ(errorOf({"--batch-file", std::string("batch\x01.pt")}),
            "--batch-file: batch\\x01.pt: a file name with a control character");
}

}  // namespace
}  // namespace splitstep
