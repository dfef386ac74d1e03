#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cases/CaseCatalogue.hpp"
#include "cases/CollectiveCase.hpp"
#include "cases/MatmulCase.hpp"
#include "cases/MembwCase.hpp"
#include "cases/StepCase.hpp"
#include "collect/SampleCodec.hpp"

namespace splitstep {
namespace {

CollectiveCase groupedAllreduce() {
  return {"nccl",
          "allreduce",
          CollectiveDtype::Bf16,
          Placement::InPlace,
          1ull << 30,
          1ull << 30,
          1ull << 29,
          BufferKind::Device,
          CaseGroup{{0, 2}, 1, GroupMode::Concurrent}};
}

StepCase overlapStep() {
  StepCase c;
  c.model = "gpt2";
  c.precision = StepPrecision::Bf16;
  c.mode = SyncMode::Overlap;
  c.optimizer = StepOptimizer::AdamW;
  c.optimizer_impl = OptimizerImpl::Fused;
  c.input = InputSource::Device;
  c.batch = 8;
  c.flop_per_step = 5.5e13;
  c.world_size = 2;
  c.parameters = 124439808;
  c.on_cuda = true;
  c.delay = StepDelay{1, 0.002};
  c.buckets = StepBuckets{2, 497759232, {1048576, 496710656}};
  c.bucket = StepBucketSeries{1, 496710656, "ready"};
  return c;
}

// Through the fields, and through JSON as they travel between ranks and into results files.
template <typename Case>
void expectRoundTrip(const Case& original) {
  const CaseFields fields = original.encode();
  EXPECT_EQ(nonConforming(fields, Case::family()), "");
  EXPECT_EQ(Case::decode(fields), original);
  const CaseFields travelled =
      nlohmann::json::parse(nlohmann::json(fields).dump()).get<CaseFields>();
  EXPECT_EQ(travelled, fields);
  EXPECT_EQ(Case::decode(travelled), original);
}

TEST(CaseSchema, EveryFamilyDecodesWhatItEncodes) {
  expectRoundTrip(groupedAllreduce());
  CollectiveCase world = groupedAllreduce();
  world.group.reset();
  expectRoundTrip(world);
  world.nccl = AlgorithmChoice{"NVLS_TREE", "LL128", 16};
  expectRoundTrip(world);
  expectRoundTrip(MatmulCase{MatmulDtype::Tf32, {8192, 4096, 1024}, "tf32"});
  expectRoundTrip(MatmulCase{MatmulDtype::Fp32, {64, 64, 64}, ""});
  expectRoundTrip(MembwCase{"h2d pinned", 1ull << 28});
  expectRoundTrip(overlapStep());
  StepCase none = overlapStep();
  none.mode = SyncMode::None;
  none.delay.reset();
  none.buckets.reset();
  none.bucket.reset();
  expectRoundTrip(none);
  StepCase graphed = none;
  graphed.launch = StepLaunch::Graph;
  expectRoundTrip(graphed);
  // An eager case has no launch field (as results files before it), and reads back as eager.
  EXPECT_EQ(none.encode().get<std::string>("launch"), nullptr);
  CaseFields bad = graphed.encode();
  bad.values.insert_or_assign("launch", std::string("sometimes"));
  EXPECT_EQ(StepCase::decode(bad), std::nullopt);
}

TEST(CaseSchema, NumbersAreWrittenAsNumbersAndListsAsArrays) {
  const nlohmann::json json = fieldsJson(groupedAllreduce().encode());
  EXPECT_TRUE(json["bytes"].is_number_integer());
  EXPECT_EQ(json["bytes"], 1ull << 30);
  EXPECT_EQ(json["placement"], "in");
  EXPECT_EQ(json["group"], nlohmann::json::array({0, 2}));
  EXPECT_FALSE(json.contains("nccl_algorithm"));  // NCCL told nothing: no field at all
  CollectiveCase chosen = groupedAllreduce();
  chosen.nccl = AlgorithmChoice{"RING", "SIMPLE", 24};
  const nlohmann::json told = fieldsJson(chosen.encode());
  EXPECT_EQ(told["nccl_algorithm"], "RING");
  EXPECT_EQ(told["nccl_protocol"], "SIMPLE");
  EXPECT_TRUE(told["nccl_channels"].is_number_integer());
  EXPECT_EQ(told["nccl_channels"], 24);
  const nlohmann::json step = fieldsJson(overlapStep().encode());
  EXPECT_TRUE(step["flop_per_step"].is_number_float());
  EXPECT_EQ(step["bucket_sizes"], nlohmann::json::array({1048576, 496710656}));
}

TEST(CaseSchema, ACollectiveIsLabelledFromItsFieldsItsGroupAside) {
  // What names a grouped case's series in the groups analysis, with no name taken apart.
  EXPECT_EQ(groupedAllreduce().label(), "nccl bf16 1 GiB in place");
  CollectiveCase out = groupedAllreduce();
  out.placement = Placement::OutOfPlace;
  out.backend = "mpi";
  out.size = 8;
  EXPECT_EQ(out.label(), "mpi bf16 8 B");
}

TEST(CaseSchema, FieldsTravelWithTheirTypesNotGuessedFromTheJson) {
  CaseFields fields{"step", {}};
  fields.values.emplace("whole", 2.0);              // a number that happens to be whole
  fields.values.emplace("buckets", IntegerList{});  // an empty list
  fields.values.emplace("count", std::int64_t{1} << 40);
  const nlohmann::json json = fields;
  EXPECT_EQ(json["values"]["whole"], nlohmann::json::array({"number", 2.0}));
  const CaseFields back = nlohmann::json::parse(json.dump()).get<CaseFields>();
  EXPECT_EQ(back, fields);
  ASSERT_NE(back.get<double>("whole"), nullptr);
  ASSERT_NE(back.get<IntegerList>("buckets"), nullptr);
  // A value that is not of its declared type, or a type that is none, is refused.
  nlohmann::json mistyped = json;
  mistyped["values"]["count"] = nlohmann::json::array({"integer", 1.5});
  EXPECT_THROW(mistyped.get<CaseFields>(), std::invalid_argument);
  mistyped["values"]["count"] = nlohmann::json::array({"big integer", 1});
  EXPECT_THROW(mistyped.get<CaseFields>(), std::invalid_argument);
  EXPECT_THROW(fieldValue(FieldType::Integers, nlohmann::json::array({1, "2"})),
               std::invalid_argument);
}

TEST(CaseSchema, FieldsOfAnotherFamilyOrMissingOrMistypedDoNotDecode) {
  EXPECT_FALSE(CollectiveCase::decode(MembwCase{"copy", 1024}.encode()));
  CaseFields fields = groupedAllreduce().encode();
  fields.values.erase("count");
  EXPECT_FALSE(CollectiveCase::decode(fields));
  fields = groupedAllreduce().encode();
  fields.values["bytes"] = std::string("1073741824");  // text is not a byte count
  EXPECT_FALSE(CollectiveCase::decode(fields));
  EXPECT_NE(nonConforming(fields, CollectiveCase::family()), "");
  fields = groupedAllreduce().encode();
  fields.values["dtype"] = std::string("fp64");  // not a collective dtype
  EXPECT_FALSE(CollectiveCase::decode(fields));
  fields = groupedAllreduce().encode();
  fields.values.erase("group_mode");  // a group without its mode
  EXPECT_FALSE(CollectiveCase::decode(fields));
  CollectiveCase chosen = groupedAllreduce();
  chosen.nccl = AlgorithmChoice{"RING", "SIMPLE", 24};
  fields = chosen.encode();
  fields.values.erase("nccl_protocol");  // an algorithm without its protocol
  EXPECT_FALSE(CollectiveCase::decode(fields));
  fields = chosen.encode();
  fields.values["nccl_channels"] = std::string("24");  // text is not a channel count
  EXPECT_FALSE(CollectiveCase::decode(fields));
  fields = overlapStep().encode();
  fields.values["extra"] = std::int64_t{1};
  EXPECT_EQ(nonConforming(fields, StepCase::family()), "field 'extra' is not declared by step");
}

TEST(CaseSchema, TheCatalogueNamesEachSuitesFamily) {
  EXPECT_EQ(familyOfSuite("alltoall"), &CollectiveCase::family());
  EXPECT_EQ(familyOfSuite("matmul"), &MatmulCase::family());
  EXPECT_EQ(familyOfSuite("step"), &StepCase::family());
  EXPECT_EQ(familyOfSuite("collective"), nullptr);  // a family, not a suite
  EXPECT_EQ(familyOfSuite("nonesuch"), nullptr);
  const auto pairs = suiteFamilies({"membw", "sendrecv"});
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[1], (std::pair<std::string, std::string>{"sendrecv", "collective"}));
  const auto names = collectiveNames();
  EXPECT_EQ(names.size(), 10u);
  EXPECT_EQ(names.front(), "allreduce");
}

// docs/results-schema.md names every field of every family, as `name`.
TEST(CaseSchema, TheSchemaDocumentNamesEveryField) {
  std::stringstream text;
  text << std::ifstream(std::string(SPLITSTEP_DOCS_DIR) + "/results-schema.md").rdbuf();
  const std::string schema = text.str();
  for (const CaseFamily* family : caseFamilies()) {
    for (const FieldSpec& field : family->fields) {
      EXPECT_NE(schema.find(fmt::format("`{}`", field.name)), std::string::npos)
          << family->name << " " << field.name;
    }
  }
}

}  // namespace
}  // namespace splitstep
