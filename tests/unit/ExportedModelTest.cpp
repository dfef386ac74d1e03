#include "models/Exported.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace splitstep {
namespace {

// What the archive reader (models/ExportedModule.cpp, not linked here) would have read: an
// nn.Sequential(Linear(16, 32), GELU, Linear(32, 8)) on 4 samples.
ExportedModelFacts readFacts(const std::string& path) {
  if (path != "seq.pt2") throw std::invalid_argument(path + ": no such file");
  ExportedModelFacts facts;
  facts.path = path;
  facts.parameters = 16 * 32 + 32 + 32 * 8 + 8;
  facts.batch = 4;
  facts.flop_per_step = 14336;
  return facts;
}

const ExportedModelReaderRegistration kReader(readFacts);

TEST(ExportedModel, ItsFlopsAreTheArchives) {
  loadExportedModel("seq.pt2");
  const StepShape shape;
  EXPECT_DOUBLE_EQ(kExportedModel.flop_per_step(shape, 4), 14336);
  EXPECT_EQ(kExportedModel.batch(shape), 4);
  EXPECT_DOUBLE_EQ(kExportedModel.parameters(shape), 808);
}

TEST(ExportedModel, ItsFlopsAreOfTheRecordedBatchAlone) {
  loadExportedModel("seq.pt2");
  try {
    kExportedModel.flop_per_step(StepShape{}, 8);
    FAIL() << "FLOPs of a batch the archive did not count";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "the exported graph's FLOPs are of 4 samples, not 8");
  }
}

TEST(ExportedModel, TheReadersRefusalReachesTheCaller) {
  EXPECT_THROW(loadExportedModel("missing.pt2"), std::invalid_argument);
}

TEST(ExportedModel, AnArchiveOfAnotherTorchReleaseIsNamedWithBothVersions) {
  EXPECT_EQ(otherTorchRelease("2.15.0", "2.11.0"),
            "exported with torch 2.15.0, this splitstep runs LibTorch 2.11.0");
  EXPECT_EQ(otherTorchRelease("2.1.0", "2.11.0"),
            "exported with torch 2.1.0, this splitstep runs LibTorch 2.11.0");
  EXPECT_EQ(otherTorchRelease("3.11.0", "2.11.0"),
            "exported with torch 3.11.0, this splitstep runs LibTorch 2.11.0");
  EXPECT_EQ(otherTorchRelease("", "2.11.0"),
            "exported with torch of no recorded version, this splitstep runs LibTorch 2.11.0");
  EXPECT_EQ(otherTorchRelease("nightly", "2.11.0"),
            "exported with torch nightly, this splitstep runs LibTorch 2.11.0");
  // One release: the patch level and the local build suffix do not count.
  EXPECT_EQ(otherTorchRelease("2.11.0", "2.11.0"), std::nullopt);
  EXPECT_EQ(otherTorchRelease("2.11.1+cu130", "2.11.0"), std::nullopt);
  EXPECT_EQ(otherTorchRelease("2.11.0a0+git1234", "2.11.0"), std::nullopt);
  EXPECT_EQ(torchRelease("2.11.0+cpu"), "2.11");
  EXPECT_EQ(torchRelease("2.11"), "2.11");
  EXPECT_EQ(torchRelease("2"), "");
  EXPECT_EQ(torchRelease(".11.0"), "");
  EXPECT_EQ(torchRelease("2..0"), "");
}

}  // namespace
}  // namespace splitstep
