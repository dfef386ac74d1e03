#include "report/JsonReporter.hpp"

#include <string_view>

#include "collect/SampleCodec.hpp"
#include "report/AtomicFile.hpp"

namespace splitstep {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Summary, n, min, max, mean, stddev, median, p5, p95, iqr, cv)
// The settings users choose. align_ranks is left out: suites set it per case (collectives and
// the step), where arrival_waits show it; a run-wide false would misstate those cases.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MeasureSettings, warmup, warmup_time, loops, min_sample_time,
                                   samples, min_samples, min_time, max_noise, max_time,
                                   queued_start, l2_flush, cuda_graph)

void JsonReporter::reportContext(const RunContext& context) {
  const Versions& v = context.versions;
  nlohmann::json plan = nlohmann::json::object();
  for (const auto& [key, value] : context.plan) plan[key] = value;
  document_ = {
      {"schema", kResultsSchema},
      {"metadata",
       {{"splitstep_version", v.splitstep},
        {"git_revision", v.git_revision},
        {"libtorch_version", v.libtorch},
        {"cuda_runtime_version", v.cuda_runtime},
        {"cuda_driver_version", v.cuda_driver},
        {"nccl_version", v.nccl},
        {"mpi_library", v.mpi},
        {"command_line", context.command_line},
        {"started_utc", context.started_utc},
        {"world_size", context.ranks.size()},
        {"backend", context.backend},
        {"notes", context.notes},
        {"plan_hash", context.plan_hash},
        {"measure", context.measure}}},
      {"plan", plan},
      {"ranks", context.ranks},
      {"cases", nlohmann::json::array()},
      {"derived", nlohmann::json::array()},
      {"complete", false},
      {"ended", nullptr},
  };
  write();
}

void JsonReporter::reportCase(const CaseResult& result) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankResult& rank : result.ranks) {
    nlohmann::json entry = rank.measurement;  // values, host_values, cold, loops, noise, ...
    entry["rank"] = rank.rank;
    entry["summary"] = rank.summary;
    entry["host_summary"] =
        rank.host_summary ? nlohmann::json(*rank.host_summary) : nlohmann::json(nullptr);
    entry["checks"] = rank.checks;
    entry["warnings"] = rank.warnings;
    ranks.push_back(std::move(entry));
  }
  nlohmann::json rates = nlohmann::json::object();
  for (const RateValue& rate : result.rates) rates[rate.name] = rate.value;
  nlohmann::json entry = {
      {"suite", result.suite},
      {"case", result.case_name},
      {"series", result.series},
      {"part_of", result.part_of},
      {"unit", result.unit},
      {"clock", result.clock},
      {"params", result.params},
      {"notes", result.notes},
      {"warnings", result.warnings},
      {"skipped", result.skipped()},
      {"rates", rates},
      {"check", {{"checked", result.checked}, {"wrong", result.wrong}}},
      {"ranks", ranks},
  };
  if (!result.skipped()) {
    entry["across_ranks"] = result.across;
    entry["slowest_rank"] = result.slowest_rank;
  }
  if (result.arrival_skew) entry["arrival_skew"] = *result.arrival_skew;
  if (result.share) entry["share"] = *result.share;
  if (result.speedup) {
    entry["speedup"] = {{"baseline", result.speedup_baseline}, {"value", *result.speedup}};
  }
  // Each case is printed once: the file is rewritten after every case, and printing the whole
  // document each time would cost the square of its size.
  std::string text = entry.dump(2);
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 5)) {
    text.replace(at, 1, "\n    ");  // to its depth in the document
  }
  case_texts_.push_back(std::move(text));
  write();
}

void JsonReporter::reportDerived(const DerivedResult& derived) {
  nlohmann::json figures = nlohmann::json::array();
  for (const DerivedFigure& figure : derived.figures) {
    nlohmann::json per_rank = nlohmann::json::array();
    for (const auto& [rank, value] : figure.per_rank) {
      per_rank.push_back({{"rank", rank}, {"value", value}});
    }
    figures.push_back({{"tag", figure.tag},
                       {"name", figure.name},
                       {"unit", figure.unit},
                       {"value", figure.value},
                       {"per_rank", per_rank},
                       {"note", figure.note}});
  }
  document_["derived"].push_back({{"suite", derived.suite},
                                  {"subject", derived.subject},
                                  {"title", derived.title},
                                  {"figures", figures},
                                  {"findings", derived.findings}});
}

void JsonReporter::finalize() {
  document_["complete"] = true;
  document_["ended"] = "completed";
  write();
}

void JsonReporter::endEarly(const std::string& reason) {
  document_["complete"] = false;
  document_["ended"] = reason;
  write();
}

void JsonReporter::write() const {
  // The document with an empty case list, and the cases spliced in at its place: the same text
  // as printing the whole document at once.
  std::string text = document_.dump(2);
  std::string cases = "[";
  for (std::size_t i = 0; i < case_texts_.size(); ++i) {
    cases += i == 0 ? "\n    " : ",\n    ";
    cases += case_texts_[i];
  }
  cases += case_texts_.empty() ? "]" : "\n  ]";
  constexpr std::string_view kEmpty = "\n  \"cases\": []";
  const std::size_t at = text.find(kEmpty);
  text.replace(at + kEmpty.size() - 2, 2, cases);
  writeFileAtomically(path_, text + "\n");
}

}  // namespace splitstep
