#include "report/ReporterSet.hpp"

#include <algorithm>
#include <memory>

#include "report/AtomicFile.hpp"
#include "report/ChromeTrace.hpp"
#include "report/ConsoleReporter.hpp"
#include "report/CsvReporter.hpp"
#include "report/JsonReporter.hpp"
#include "report/MetricsReporter.hpp"

namespace splitstep {

void addReporters(ReporterMultiplex& reporters, const OutputPlan& output, std::ostream& console) {
  if (!output.json_path.empty()) reporters.add(std::make_unique<JsonReporter>(output.json_path));
  if (!output.csv_path.empty()) reporters.add(std::make_unique<CsvReporter>(output.csv_path));
  if (!output.metrics_path.empty()) {
    reporters.add(std::make_unique<MetricsReporter>(output.metrics_path));
  }
  reporters.add(std::make_unique<ConsoleReporter>(
      console, ConsoleStyle{.verbose = output.verbose, .format = output.format}));
}

double writeTrace(const std::string& path, const std::vector<RankInfo>& ranks,
                  const std::vector<RankTimeline>& timelines, const std::string& command_line) {
  double uncertainty = 0;
  for (const RankTimeline& t : timelines) uncertainty = std::max(uncertainty, t.clock_uncertainty);
  writeFileAtomically(path, chromeTrace(ranks, timelines, command_line).dump());
  return uncertainty;
}

}  // namespace splitstep
