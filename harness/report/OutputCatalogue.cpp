#include "report/OutputCatalogue.hpp"

#include <algorithm>
#include <vector>

#include "report/ChromeTrace.hpp"
#include "report/CsvReporter.hpp"
#include "report/JsonReporter.hpp"
#include "report/MarkdownReporter.hpp"
#include "report/MetricsReporter.hpp"
#include "report/TraceReporter.hpp"

namespace splitstep {
namespace {

template <typename R>
std::unique_ptr<Reporter> make(const std::string& path) {
  return std::make_unique<R>(path);
}

bool csvHeader(std::istream& file) {
  std::string header;
  for (const std::string& column : CsvReporter::leadingColumns()) {
    if (!header.empty()) header += ',';
    header += csvField(column);
  }
  return firstLineStartsWith(file, header, ',');
}

// clang-format off
const OutputSpec kOutputs[] = {
  {{"json", "write the full results to this JSON file"},
   {"results", [](std::istream& f) { return namesSchema(f, false, schemaFamily(kResultsSchema)); }},
   make<JsonReporter>},
  {{"csv", "write one row per case and rank to this CSV file"},
   {"CSV", csvHeader},
   make<CsvReporter>},
  {{"trace", "write a timeline of every rank to this file (Chrome trace JSON: opens in ui.perfetto.dev)",
    true},
   {"trace", [](std::istream& f) { return namesSchema(f, true, schemaFamily(kTraceSchema)); }},
   make<TraceReporter>},
  {{"metrics",
    "write the verdict to this file in the Prometheus text format (node-exporter's textfile collector)"},
   {"metrics", [](std::istream& f) { return startsWith(f, schemaFamily(kMetricsSchema)); }},
   make<MetricsReporter>},
  {{"markdown",
    "write the cases as a Markdown table to this file (to paste into an issue or a pull request)"},
   {"Markdown", [](std::istream& f) { return startsWith(f, kMarkdownSchema); }},
   make<MarkdownReporter>},
};
// clang-format on

}  // namespace

std::span<const OutputSpec> outputCatalogue() { return kOutputs; }

std::span<const OutputInfo> outputInfos() {
  static const std::vector<OutputInfo> infos = [] {
    std::vector<OutputInfo> all;
    for (const OutputSpec& spec : kOutputs) all.push_back(spec.info);
    return all;
  }();
  return infos;
}

const OutputSpec* findOutput(std::string_view name) {
  const auto* it = std::find_if(std::begin(kOutputs), std::end(kOutputs),
                                [name](const OutputSpec& spec) { return spec.info.name == name; });
  return it == std::end(kOutputs) ? nullptr : it;
}

}  // namespace splitstep
