#include "report/JsonReporter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <type_traits>
#include <variant>

#include "cases/CaseCatalogue.hpp"
#include "collect/SampleCodec.hpp"
#include "comm/Collective.hpp"
#include "derived/NodeSpread.hpp"
#include "derived/Verdict.hpp"
#include "report/AtomicFile.hpp"
#include "stats/MedianInterval.hpp"

namespace splitstep {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Summary, n, min, max, mean, stddev, median, p5, p95, iqr, cv)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MedianInterval, low, high, coverage)
// The settings users choose. align_ranks and head_start_up_to are left out: suites set them per
// case (collectives and the step), where arrival_waits and the method show them; a run-wide value
// would misstate those cases.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MeasureSettings, warmup, warmup_time, loops, min_sample_time,
                                   samples, min_samples, min_time, ci_target, max_noise, max_time,
                                   queued_start, l2_flush, cuda_graph)

namespace {

std::vector<std::string> warningTexts(const std::vector<CaseWarning>& warnings) {
  std::vector<std::string> texts;
  for (const CaseWarning& w : warnings) texts.push_back(w.text);
  return texts;
}

// Each collective's facts that readers act on, by name: its root (null for none), its reduction,
// its nccl-tests binary, and the judgements of its busbw beyond its own cases.
nlohmann::json collectiveFactsJson() {
  nlohmann::json facts = nlohmann::json::object();
  for (const CollectiveDescriptor* c : collectives()) {
    nlohmann::json verdicts = nlohmann::json::array();
    for (const CollectiveVerdict v : c->verdicts) verdicts.push_back(toString(v));
    facts[std::string(c->name)] = {{"root", c->root ? nlohmann::json(*c->root) : nlohmann::json()},
                                   {"reduction", toString(c->reduction)},
                                   {"nccl_tests_binary", c->nccl_tests_binary},
                                   {"verdicts", verdicts}};
  }
  return facts;
}

// What readers need to know of the file's cases without knowing splitstep: the suites, the
// collectives and their facts, and each family's fields and rates with their types and units.
nlohmann::json catalogueJson(const RunContext& context) {
  nlohmann::json suites = nlohmann::json::array();
  for (const auto& [suite, family] : context.suite_families) {
    suites.push_back({{"name", suite}, {"family", family}});
  }
  nlohmann::json families = nlohmann::json::object();
  for (const CaseFamily* family : caseFamilies()) {
    nlohmann::json fields = nlohmann::json::array();
    for (const FieldSpec& f : family->fields) {
      nlohmann::json field = {
          {"name", f.name}, {"type", toString(f.type)}, {"unit", f.unit}, {"help", f.help}};
      if (!f.values.empty()) field["values"] = f.values;
      fields.push_back(std::move(field));
    }
    nlohmann::json rates = nlohmann::json::array();
    // Every rate is a throughput: higher is better.
    for (const RateSpec& r : family->rates) {
      rates.push_back({{"key", r.key}, {"name", r.name}, {"unit", r.unit}, {"better", "higher"}});
    }
    families[std::string(family->name)] = {
        {"fields", fields}, {"rates", rates}, {"parts", family->parts}};
  }
  return {{"suites", suites},
          {"collectives", context.collectives},
          {"collective_facts", collectiveFactsJson()},
          {"families", families}};
}

nlohmann::json wallJson(const RunWallTimes& wall) {
  nlohmann::json suites = nlohmann::json::array();
  for (const auto& [suite, seconds] : wall.suites) {
    suites.push_back({{"suite", suite}, {"seconds", seconds}});
  }
  return {{"start_up", wall.start_up}, {"suites", suites}, {"gather", wall.gather}};
}

// The verdict per node, typed for a fleet's scripts (docs/results-schema.md#the-verdict).
nlohmann::json verdictJson(const std::vector<NodeVerdict>& verdicts,
                           const std::vector<RankInfo>& ranks) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeVerdict& node : verdicts) {
    nlohmann::json items = nlohmann::json::array();
    for (const ItemVerdict& i : node.items) {
      const auto judged = [&i](double value) {
        return i.measured ? nlohmann::json(value) : nlohmann::json();
      };
      items.push_back({{"item", toString(i.item)},
                       {"judged", i.measured.has_value()},
                       {"unit", i.unit},
                       {"measured", judged(i.measured.value_or(0))},
                       {"expected", judged(i.expected)},
                       {"ratio", judged(i.ratio())},
                       {"below_expected", i.below()},
                       {"rank", i.rank >= 0 ? nlohmann::json(i.rank) : nlohmann::json()},
                       {"case", i.what},
                       {"not_judged", i.not_judged}});
    }
    nodes.push_back({{"node", node.host},
                     {"node_index", node.node},
                     {"gpu", node.gpu},
                     {"reference", node.has_reference},
                     {"healthy", node.healthy()},
                     {"line", node.line(ranks)},
                     {"items", items}});
  }
  return nodes;
}

// A value as its type writes it: a number stays a number, a list a list.
nlohmann::json typedJson(const TypedValue& value) {
  return std::visit(
      [](const auto& held) {
        if constexpr (std::is_same_v<std::decay_t<decltype(held)>, TypedValue::List>) {
          nlohmann::json items = nlohmann::json::array();
          for (const TypedValue& item : held) items.push_back(typedJson(item));
          return items;
        } else {
          return nlohmann::json(held);
        }
      },
      value.value);
}

// Named values (the plan, a figure's key) as one object, each value as its type.
nlohmann::json fieldsJson(const TypedFields& fields) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [name, value] : fields) object[name] = typedJson(value);
  return object;
}

}  // namespace

void JsonReporter::reportContext(const RunContext& context) {
  ranks_ = context.ranks;
  const Versions& v = context.versions;
  const nlohmann::json plan = fieldsJson(context.plan);
  nlohmann::json job = nullptr;
  if (!context.job.scheduler.empty()) {
    job = {{"scheduler", context.job.scheduler},
           {"id", context.job.id},
           {"node_list", context.job.node_list}};
  }
  nlohmann::json environment = nlohmann::json::object();
  for (const auto& [name, value] : context.environment) environment[name] = value;
  nlohmann::json links = nlohmann::json::array();
  for (const RankLink& link : context.gpu_links) {
    links.push_back(
        {{"node", link.node}, {"ranks", {link.first, link.second}}, {"link", link.link}});
  }
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
        {"measure", context.measure},
        {"wall", wallJson(context.wall)},
        {"job", job},
        {"environment", environment},
        {"environment_differs_on_ranks", context.environment_differs},
        {"gpu_links", links},
        {"catalogue", catalogueJson(context)}}},
      {"plan", plan},
      {"ranks", context.ranks},
      {"cases", nlohmann::json::array()},
      {"derived", nlohmann::json::array()},
      {"verdict", nlohmann::json::array()},  // until the first is reported
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
    entry["median_ci"] = rank.median_ci;
    entry["host_summary"] =
        rank.host_summary ? nlohmann::json(*rank.host_summary) : nlohmann::json(nullptr);
    entry["checks"] = rank.checks;
    entry["warnings"] = rank.warnings;
    entry["telemetry"] = rank.telemetry ? nlohmann::json(*rank.telemetry) : nlohmann::json();
    ranks.push_back(std::move(entry));
  }
  nlohmann::json rates = nlohmann::json::object();
  for (const RateValue& rate : result.rates) rates[rate.name] = rate.value;
  nlohmann::json entry = caseIdentityJson(result);
  entry.update({
      {"clock", result.clock},
      {"family", result.fields.family},
      {"fields", fieldsJson(result.fields)},
      {"notes", result.notes},
      {"warnings", warningTexts(result.warnings)},
      {"skipped", result.skipped()},
      {"rates", rates},
      {"check", {{"checked", result.checked}, {"wrong", result.wrong}}},
      {"ranks", ranks},
  });
  if (!result.skipped()) {
    entry["across_ranks"] = result.across;
    entry["slowest_rank"] = result.slowest_rank;
  }
  if (nodeCount(ranks_) > 1 && !result.skipped()) {
    nlohmann::json by_node = nlohmann::json::array();
    for (const NodeSpread& node : spreadByNode(result, ranks_)) {
      by_node.push_back({{"node", node.node},
                         {"host", node.host},
                         {"ranks", node.ranks},
                         {"summary", node.across},
                         {"slowest", node.slowest}});
    }
    entry["by_node"] = std::move(by_node);
  }
  if (result.arrival_skew) entry["arrival_skew"] = *result.arrival_skew;
  if (result.share) entry["share"] = *result.share;
  if (result.speedup) {
    entry["speedup"] = {{"baseline", result.speedup_baseline}, {"value", *result.speedup}};
  }
  // Each case is printed once: the file is rewritten after every case, and printing the whole
  // document each time would cost the square of its size.
  const std::string dumped = entry.dump(2);
  // Indented to its depth in the document in one pass: a replace per line would move the rest
  // of the text each time, the square of a case's size (seconds for 100,000 samples).
  std::string text;
  text.reserve(dumped.size() +
               4 * static_cast<std::size_t>(std::count(dumped.begin(), dumped.end(), '\n')));
  for (const char c : dumped) {
    text += c;
    if (c == '\n') text += "    ";
  }
  case_texts_.push_back(std::move(text));
  write();
}

void JsonReporter::reportVerdict(const std::vector<NodeVerdict>& verdicts) {
  document_["verdict"] = verdictJson(verdicts, ranks_);
}

void JsonReporter::reportDerived(const DerivedResult& derived) {
  nlohmann::json figures = nlohmann::json::array();
  for (const DerivedFigure& figure : derived.figures) {
    nlohmann::json per_rank = nlohmann::json::array();
    for (const auto& [rank, value] : figure.per_rank) {
      per_rank.push_back({{"rank", rank}, {"value", value}});
    }
    figures.push_back(
        {{"tag", figure.tag},
         {"name", figure.name},
         {"unit", figure.unit},
         {"value", figure.value},
         {"per_rank", per_rank},
         {"note", figure.note},
         {"detail", figure.detail},
         {"key", fieldsJson(figure.key)},
         {"interval", figure.interval
                          ? nlohmann::json::array({figure.interval->first, figure.interval->second})
                          : nlohmann::json()}});
  }
  document_["derived"].push_back({{"suite", derived.suite},
                                  {"subject", derived.subject},
                                  {"title", derived.title},
                                  {"figures", figures},
                                  {"findings", derived.findings},
                                  {"notes", derived.notes},
                                  {"assumptions", derived.assumptions}});
}

void JsonReporter::reportWallTimes(const RunWallTimes& wall) {
  document_["metadata"]["wall"] = wallJson(wall);
}

void JsonReporter::finalize() {
  document_["complete"] = true;
  document_["ended"] = "completed";
  write();
  ended_ = true;
}

void JsonReporter::endEarly(const std::string& reason) {
  document_["complete"] = false;
  document_["ended"] = reason;
  write();
  ended_ = true;
}

std::string JsonReporter::written() const {
  return ended_ ? fmt::format("results written to {}\n", path_) : std::string();
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
