#include "report/ReporterSet.hpp"

#include <memory>
#include <stdexcept>

#include "report/ConsoleReporter.hpp"
#include "report/OutputCatalogue.hpp"

namespace splitstep {

void addReporters(ReporterMultiplex& reporters, const OutputPlan& output, std::ostream& console) {
  for (const OutputFile& file : output.files) {
    if (file.path.empty()) continue;
    const OutputSpec* spec = findOutput(file.name);
    // The plan's files come from the catalogue the options were handed.
    if (spec == nullptr)
      throw std::logic_error("output '" + file.name + "' is not in the catalogue");
    reporters.add(spec->make(file.path));
  }
  reporters.add(std::make_unique<ConsoleReporter>(
      console, ConsoleStyle{.verbose = output.verbose, .format = output.format}));
}

}  // namespace splitstep
