#include "report/JsonReporter.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ReportFixtures.hpp"
#include "TempPath.hpp"
#include "cases/CaseCatalogue.hpp"

namespace splitstep {
namespace {

nlohmann::json readJson(const std::filesystem::path& path) {
  std::ifstream file(path);
  return nlohmann::json::parse(file);
}

nlohmann::json writeAndRead(const std::vector<CaseResult>& cases = testing::matmulCases(),
                            const std::vector<DerivedResult>& derived = {},
                            const RunContext& context = testing::twoRankContext()) {
  const auto path = testing::tempPathForThisTest(".json");
  JsonReporter reporter(path.string());
  reporter.reportContext(context);
  // One batch, after its verdict, as StreamingReport hands them over.
  reporter.reportVerdict(judgeNodes(cases, context.ranks));
  for (const CaseResult& c : cases) reporter.reportCase(c);
  for (const DerivedResult& d : derived) reporter.reportDerived(d);
  reporter.finalize();
  std::ifstream file(path);
  nlohmann::json document = nlohmann::json::parse(file);
  std::filesystem::remove(path);
  return document;
}

TEST(JsonReporter, MetadataNamesEveryVersionTheCommandAndThePlan) {
  const nlohmann::json doc = writeAndRead();
  EXPECT_EQ(doc["schema"], kResultsSchema);
  const auto& meta = doc["metadata"];
  EXPECT_EQ(meta["splitstep_version"], "0.1.0");
  EXPECT_EQ(meta["git_revision"], "abc123");
  EXPECT_EQ(meta["libtorch_version"], "2.11.0");
  EXPECT_EQ(meta["cuda_runtime_version"], "13.0");
  EXPECT_EQ(meta["nccl_version"], "2.28.3");
  EXPECT_EQ(meta["mpi_library"], "Open MPI v4.1.6");
  EXPECT_EQ(meta["command_line"], "splitstep matmul --json out.json");
  EXPECT_EQ(meta["world_size"], 2);
  EXPECT_EQ(meta["measure"]["samples"], 2);
  EXPECT_EQ(meta["measure"]["max_noise"], 0.005);
  EXPECT_EQ(meta["measure"]["ci_target"], 0.005);
  EXPECT_EQ(meta["wall"]["start_up"], 2.5);
  EXPECT_EQ(meta["wall"]["suites"][0]["suite"], "matmul");
  EXPECT_EQ(meta["wall"]["suites"][0]["seconds"], 12.25);
  EXPECT_EQ(meta["wall"]["gather"], 0.125);
  // The plan typed: a count as a number, the suites as a list.
  EXPECT_EQ(doc["plan"]["samples"], 2);
  EXPECT_EQ(doc["plan"]["suites"], nlohmann::json::array({"matmul"}));
  EXPECT_EQ(doc["ranks"][1]["host"], "nodeA");
  EXPECT_EQ(doc["ranks"][1]["device_name"], "NVIDIA H200");
}

// Readers learn each collective's root, reduction, nccl-tests binary and verdicts from the file.
TEST(JsonReporter, TheCatalogueCarriesEachCollectivesFacts) {
  const nlohmann::json facts = writeAndRead()["metadata"]["catalogue"]["collective_facts"];
  ASSERT_EQ(facts.size(), collectiveNames().size());
  const nlohmann::json& allreduce = facts["allreduce"];
  EXPECT_TRUE(allreduce["root"].is_null());
  EXPECT_EQ(allreduce["reduction"], "sum");
  EXPECT_EQ(allreduce["nccl_tests_binary"], "all_reduce_perf");
  EXPECT_EQ(allreduce["verdicts"], (std::vector<std::string>{"node-busbw", "scaling-busbw"}));
  const nlohmann::json& gather = facts["gather"];
  EXPECT_EQ(gather["root"], 0);
  EXPECT_EQ(gather["reduction"], "none");
  EXPECT_EQ(gather["nccl_tests_binary"], "gather_perf");
  EXPECT_TRUE(gather["verdicts"].empty());
}

TEST(JsonReporter, TheCatalogueDeclaresEachFamilysRatesByKeyNameUnitAndDirection) {
  const nlohmann::json families = writeAndRead()["metadata"]["catalogue"]["families"];
  const nlohmann::json& collective = families["collective"]["rates"];
  ASSERT_EQ(collective.size(), 2u);
  EXPECT_EQ(collective[1]["key"], "busbw");
  EXPECT_EQ(collective[1]["name"], "busbw GB/s");
  EXPECT_EQ(collective[1]["unit"], "GB/s");
  EXPECT_EQ(collective[1]["better"], "higher");
  const nlohmann::json& step = families["step"]["rates"];
  ASSERT_EQ(step.size(), 2u);
  EXPECT_EQ(step[0]["key"], "samples_per_second");
  EXPECT_EQ(step[1]["name"], "TFLOP/s");
  EXPECT_EQ(families["membw"]["rates"][0]["key"], "memory_bandwidth");
}

// A reader learns the names a field takes and a step's phases from the file, in their order.
TEST(JsonReporter, TheCatalogueListsAFieldsNamesAndAStepsPhases) {
  const nlohmann::json families = writeAndRead()["metadata"]["catalogue"]["families"];
  const auto field = [&](const std::string& family, const std::string& name) {
    for (const nlohmann::json& f : families[family]["fields"]) {
      if (f["name"] == name) return f;
    }
    return nlohmann::json();
  };
  EXPECT_EQ(field("step", "mode")["values"],
            nlohmann::json::array({"none", "sequential", "overlap", "single"}));
  EXPECT_EQ(field("step", "quantity")["values"],
            nlohmann::json::array({"ready", "launch delay", "comm", "finish after backward"}));
  EXPECT_EQ(field("matmul", "dtype")["values"],
            nlohmann::json::array({"fp32", "tf32", "fp16", "bf16"}));
  EXPECT_EQ(field("collective", "placement")["values"], nlohmann::json::array({"out", "in"}));
  // A name any value of which goes: no list.
  EXPECT_FALSE(field("step", "model").contains("values"));
  EXPECT_EQ(families["step"]["parts"],
            nlohmann::json::array({"data", "forward", "loss", "backward", "sync", "optimizer"}));
  EXPECT_EQ(families["collective"]["parts"], nlohmann::json::array());
}

TEST(JsonReporter, RanksNameTheirPhysicalGpuNodeAndLinks) {
  const nlohmann::json doc = writeAndRead();
  const auto& rank = doc["ranks"][0];
  EXPECT_EQ(rank["node_index"], 0);
  EXPECT_EQ(rank["pci_bus_id"], "0000:3b:00.0");
  EXPECT_EQ(rank["uuid"], "GPU-22222222-2222-2222-2222-222222222222");
  EXPECT_EQ(rank["gpu_links"]["GPU-11111111-1111-1111-1111-111111111111"], "NVLink");
  const auto& links = doc["metadata"]["gpu_links"];
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0]["node"], 0);
  EXPECT_EQ(links[0]["ranks"], (std::vector<int>{0, 1}));
  EXPECT_EQ(links[0]["link"], "NVLink");
}

TEST(JsonReporter, MetadataHoldsTheJobAndTheLaunchEnvironment) {
  const nlohmann::json plain = writeAndRead();
  EXPECT_TRUE(plain["metadata"]["job"].is_null());
  EXPECT_EQ(plain["metadata"]["environment"]["NCCL_DEBUG"], "WARN");
  EXPECT_EQ(plain["metadata"]["environment"].size(), 3u);
  EXPECT_TRUE(plain["metadata"]["environment_differs_on_ranks"].empty());

  RunContext context = testing::twoRankContext();
  context.job = {"slurm", "4242", "node[1-2]"};
  context.environment_differs = {1};
  const nlohmann::json doc = writeAndRead(testing::matmulCases(), {}, context);
  EXPECT_EQ(doc["metadata"]["job"]["scheduler"], "slurm");
  EXPECT_EQ(doc["metadata"]["job"]["id"], "4242");
  EXPECT_EQ(doc["metadata"]["job"]["node_list"], "node[1-2]");
  EXPECT_EQ(doc["metadata"]["environment_differs_on_ranks"], (std::vector<int>{1}));
}

TEST(JsonReporter, CasesOnSeveralNodesCarryTheirSpreadByNode) {
  EXPECT_FALSE(writeAndRead()["cases"][1].contains("by_node"));
  const nlohmann::json doc = writeAndRead(testing::matmulCases(), {}, testing::twoNodeContext());
  const auto& by_node = doc["cases"][1]["by_node"];
  ASSERT_EQ(by_node.size(), 2u);
  EXPECT_EQ(by_node[1]["node"], 1);
  EXPECT_EQ(by_node[1]["host"], "nodeB");
  EXPECT_EQ(by_node[1]["ranks"], (std::vector<int>{1}));
  EXPECT_DOUBLE_EQ(by_node[1]["summary"]["median"].get<double>(), 1.381e-3);
  EXPECT_EQ(by_node[1]["slowest"], true);
  EXPECT_EQ(by_node[0]["slowest"], false);
  EXPECT_FALSE(doc["cases"][2].contains("by_node"));  // skipped
}

TEST(JsonReporter, CasesCarryEveryRanksSamplesAndTheAcrossRankSummary) {
  const nlohmann::json doc = writeAndRead();
  ASSERT_EQ(doc["cases"].size(), 3u);
  const auto& c = doc["cases"][1];
  EXPECT_EQ(c["suite"], "matmul");
  EXPECT_EQ(c["case"], "bf16 n=8192");
  EXPECT_EQ(c["skipped"], false);
  EXPECT_EQ(c["slowest_rank"], 1);
  EXPECT_DOUBLE_EQ(c["across_ranks"]["max"].get<double>(), 1.381e-3);
  EXPECT_EQ(c["ranks"][1]["values"], (std::vector<double>{1.380e-3, 1.382e-3}));
  EXPECT_DOUBLE_EQ(c["ranks"][0]["summary"]["median"].get<double>(), 1.369e-3);
  EXPECT_NEAR(c["rates"]["TFLOP/s"].get<double>(), 799.6, 0.1);
  EXPECT_EQ(c["ranks"][1]["loops"], 2);
  EXPECT_EQ(c["ranks"][1]["host_values"].size(), 2u);
  EXPECT_DOUBLE_EQ(c["ranks"][1]["cold"].get<double>(), 45e-3);
  EXPECT_EQ(c["ranks"][1]["clock_at_end"]["max_mhz"], 1980);
  EXPECT_EQ(c["ranks"][1]["warnings"].size(), 0u);
  // The estimate's uncertainty beside the spread, and why and after how long sampling stopped.
  EXPECT_DOUBLE_EQ(c["ranks"][1]["median_ci"]["low"].get<double>(), 1.380e-3);
  EXPECT_DOUBLE_EQ(c["ranks"][1]["median_ci"]["high"].get<double>(), 1.382e-3);
  EXPECT_DOUBLE_EQ(c["ranks"][1]["median_ci"]["coverage"].get<double>(), 0.5);
  EXPECT_EQ(c["ranks"][1]["stop_rule"], "noise-target");
  EXPECT_EQ(c["ranks"][1]["stop_reason"], "noise target met (std/mean 0.10%)");
  EXPECT_DOUBLE_EQ(c["ranks"][1]["wall"]["sampling"].get<double>(), 0.5);
  EXPECT_EQ(c["speedup"]["baseline"], "fp32");
  EXPECT_NEAR(c["speedup"]["value"].get<double>(), 21.55 / 1.375, 1e-3);
  const auto& skipped = doc["cases"][2];
  EXPECT_EQ(skipped["skipped"], true);
  EXPECT_FALSE(skipped.contains("slowest_rank"));
  EXPECT_EQ(skipped["notes"][0], "skipped: for a test");
}

TEST(JsonReporter, PartsCarryTheirWholeAndShare) {
  const nlohmann::json doc = writeAndRead(testing::stepCases());
  ASSERT_EQ(doc["cases"].size(), 4u);
  // In the order reported: forward, backward, comm, step.
  const auto& forward = doc["cases"][0];
  EXPECT_EQ(forward["series"], "forward");
  EXPECT_EQ(forward["part_of"], "step");
  EXPECT_NEAR(forward["share"].get<double>(), 3.0 / 12.1, 1e-12);
  const auto& step = doc["cases"][3];
  EXPECT_EQ(step["series"], "step");
  EXPECT_EQ(step["part_of"], "");
  EXPECT_FALSE(step.contains("share"));
  EXPECT_EQ(step["family"], "step");
  EXPECT_EQ(step["fields"]["mode"], "overlap");
  // Numbers are numbers.
  EXPECT_TRUE(step["fields"]["batch"].is_number_integer());
  EXPECT_EQ(step["fields"]["batch"], 64);
  EXPECT_NEAR(step["rates"]["samples/s"].get<double>(), 64 / 12.1e-3, 1e-6);
}

TEST(JsonReporter, DerivedFiguresAndFindingsFormATopLevelArray) {
  EXPECT_EQ(writeAndRead()["derived"], nlohmann::json::array());
  const nlohmann::json doc = writeAndRead(testing::stepCases(), {testing::stepDerived()});
  ASSERT_EQ(doc["derived"].size(), 1u);
  const auto& d = doc["derived"][0];
  EXPECT_EQ(d["suite"], "step");
  EXPECT_EQ(d["subject"], "mlp bf16");
  EXPECT_EQ(d["title"], "where the step time goes");
  ASSERT_EQ(d["figures"].size(), 5u);
  const auto& t_c = d["figures"][0];
  EXPECT_EQ(t_c["tag"], "step/time/none");
  EXPECT_EQ(t_c["name"], "T_c, no gradient sync (none)");
  EXPECT_EQ(t_c["unit"], "s");
  EXPECT_DOUBLE_EQ(t_c["value"].get<double>(), 10.1e-3);
  ASSERT_EQ(t_c["per_rank"].size(), 2u);
  EXPECT_EQ(t_c["per_rank"][1]["rank"], 1);
  EXPECT_DOUBLE_EQ(t_c["per_rank"][1]["value"].get<double>(), 10.2e-3);
  EXPECT_EQ(t_c["note"], "");
  const auto& tflops = d["figures"][3];
  EXPECT_EQ(tflops["unit"], "TFLOP/s");
  EXPECT_EQ(tflops["per_rank"], nlohmann::json::array());
  EXPECT_EQ(tflops["note"],
            "run matmul with --matmul-dtypes bf16 in the same job for the compute ceiling");
  EXPECT_EQ(d["findings"], (std::vector<std::string>{"no bottleneck rule fired: the largest "
                                                     "phase is backward at 44.6% of the step "
                                                     "(overlap)"}));
  EXPECT_EQ(d["assumptions"], nlohmann::json::array());
}

TEST(JsonReporter, DerivedAssumptionsAreAnArray) {
  DerivedResult derived = testing::stepDerived();
  derived.assumptions = {"nodes of 8 ranks", "a 50 GB/s network"};
  const nlohmann::json doc = writeAndRead({}, {derived});
  EXPECT_EQ(doc["derived"][0]["assumptions"],
            (std::vector<std::string>{"nodes of 8 ranks", "a 50 GB/s network"}));
}

TEST(JsonReporter, EachRankCarriesItsTelemetryOrNull) {
  Sample with = testing::matmulSample("bf16", {1.368e-3, 1.370e-3});
  TelemetrySummary t;
  t.readings = 40;
  t.limit_readings = 40;
  t.ranges["sm_clock_mhz"] = {40, 1455, 1590, 1980};
  t.clock_limits = {{"power cap", 0.85}};
  with.telemetry = t;
  const Sample without = testing::matmulSample("bf16", {1.380e-3, 1.382e-3});
  const nlohmann::json doc = writeAndRead(summarizeCases({{with}, {without}}));
  const auto& ranks = doc["cases"][0]["ranks"];
  EXPECT_EQ(ranks[0]["telemetry"]["readings"], 40);
  EXPECT_EQ(ranks[0]["telemetry"]["sm_clock_mhz"]["min"], 1455);
  EXPECT_EQ(ranks[0]["telemetry"]["clock_limits"]["power cap"], 0.85);
  EXPECT_TRUE(ranks[1]["telemetry"].is_null());
}

TEST(JsonReporter, TheFileIsCurrentAfterEveryCaseAndMarkedIncompleteUntilTheEnd) {
  const auto path = testing::tempPathForThisTest(".json");
  JsonReporter reporter(path.string());
  reporter.reportContext(testing::twoRankContext());
  // Before any case: the run's description, nothing measured, not complete.
  nlohmann::json doc = readJson(path);
  EXPECT_EQ(doc["complete"], false);
  EXPECT_TRUE(doc["ended"].is_null());
  EXPECT_EQ(doc["cases"].size(), 0u);
  const std::vector<CaseResult> cases = testing::matmulCases();
  reporter.reportCase(cases[0]);
  doc = readJson(path);
  EXPECT_EQ(doc["cases"].size(), 1u);
  EXPECT_EQ(doc["cases"][0]["case"], "fp32 n=8192");
  EXPECT_EQ(doc["complete"], false);
  reporter.reportCase(cases[1]);
  EXPECT_EQ(readJson(path)["cases"].size(), 2u);
  reporter.finalize();
  doc = readJson(path);
  EXPECT_EQ(doc["complete"], true);
  EXPECT_EQ(doc["ended"], "completed");
  // Each case is printed once and spliced in: the file reads as the whole document printed.
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  EXPECT_EQ(text.str(), doc.dump(2) + "\n");
  std::filesystem::remove(path);
}

TEST(JsonReporter, ARunThatEndsEarlyKeepsItsCasesAndSaysWhy) {
  const auto path = testing::tempPathForThisTest(".json");
  JsonReporter reporter(path.string());
  reporter.reportContext(testing::twoRankContext());
  reporter.reportCase(testing::matmulCases()[0]);
  reporter.endEarly("rank 1 (nodeA, pid 42, stopped) did not answer");
  const nlohmann::json doc = readJson(path);
  EXPECT_EQ(doc["complete"], false);
  EXPECT_EQ(doc["ended"], "rank 1 (nodeA, pid 42, stopped) did not answer");
  ASSERT_EQ(doc["cases"].size(), 1u);
  EXPECT_EQ(doc["cases"][0]["ranks"][1]["values"].size(), 2u);
  std::filesystem::remove(path);
}

TEST(JsonReporter, APhaseWithoutHostTimesHasNoHostSummary) {
  const nlohmann::json doc = writeAndRead(testing::stepCases());
  const auto& forward = doc["cases"][0];
  ASSERT_EQ(forward["series"], "forward");
  // Not a summary of zeros, which read as a host time of 0 s.
  EXPECT_TRUE(forward["ranks"][0]["host_summary"].is_null());
  EXPECT_EQ(forward["ranks"][0]["host_values"], nlohmann::json::array());
  const auto& step = doc["cases"][3];
  ASSERT_EQ(step["series"], "step");
  EXPECT_DOUBLE_EQ(step["ranks"][0]["host_summary"]["median"].get<double>(), 20e-6);
}

// docs/results-schema.md describes what is written: the keys of metadata.measure, the step's
// check names (pinned in tests/mpi/StepSuiteTest.cpp), and how a run ended.
TEST(JsonReporter, TheVerdictPerNodeIsTypedForScripts) {
  // bf16 at 8192 on two H200s: 803 and 796 TFLOP/s, both above 80% of the expected 797.5.
  const nlohmann::json verdict = writeAndRead()["verdict"];
  ASSERT_EQ(verdict.size(), 1u);
  const nlohmann::json& node = verdict[0];
  EXPECT_EQ(node["node"], "nodeA");
  EXPECT_EQ(node["gpu"], "NVIDIA H200");
  EXPECT_EQ(node["reference"], true);
  EXPECT_EQ(node["healthy"], true);
  EXPECT_TRUE(node["line"].get<std::string>().starts_with(
      "node nodeA: healthy (each at least 80% of expected) — bf16 GEMM 796"));
  ASSERT_EQ(node["items"].size(), 4u);
  const nlohmann::json& gemm = node["items"][0];
  EXPECT_EQ(gemm["item"], "gemm-bf16");
  EXPECT_EQ(gemm["judged"], true);
  EXPECT_EQ(gemm["rank"], 1);  // the slower GPU
  EXPECT_NEAR(gemm["measured"].get<double>(), 2.0 * 8192 * 8192 * 8192 / 1.381e-3 / 1e12, 1);
  EXPECT_NEAR(gemm["ratio"].get<double>(),
              gemm["measured"].get<double>() / gemm["expected"].get<double>(), 1e-12);
  const nlohmann::json& hbm = node["items"][1];
  EXPECT_EQ(hbm["judged"], false);
  EXPECT_TRUE(hbm["measured"].is_null());
  EXPECT_EQ(hbm["not_judged"], "no membw triad case");
}

TEST(JsonReporter, TheSchemaDocumentNamesWhatIsWritten) {
  std::stringstream text;
  text << std::ifstream(std::string(SPLITSTEP_DOCS_DIR) + "/results-schema.md").rdbuf();
  const std::string schema = text.str();
  const std::size_t measure = schema.find("\"measure\": {");
  ASSERT_NE(measure, std::string::npos);
  const std::string documented = schema.substr(measure, schema.find('}', measure) - measure);
  const nlohmann::json written = writeAndRead()["metadata"]["measure"];
  for (const auto& [key, value] : written.items()) {
    EXPECT_NE(documented.find("\"" + key + "\":"), std::string::npos) << key;
  }
  std::size_t keys = 0;
  for (std::size_t at = documented.find("\":"); at != std::string::npos;
       at = documented.find("\":", at + 1)) {
    ++keys;
  }
  EXPECT_EQ(keys, written.size() + 1) << "every documented key is written (and \"measure\")";
  for (const char* check : {"`ranks identical`", "`gradients vs one process`"}) {
    EXPECT_NE(schema.find(check), std::string::npos) << check;
  }
  for (const char* field : {"\"complete\":", "\"ended\":"}) {
    EXPECT_NE(schema.find(field), std::string::npos) << field;
  }
}

}  // namespace
}  // namespace splitstep
