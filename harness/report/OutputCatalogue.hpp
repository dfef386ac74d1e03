// The output files splitstep writes, each declared once: its option and line in --help
// (options/OutputInfo), what tells a file it wrote from any other (report/OutputFiles), and the
// reporter that writes it. A new output format is one entry of the catalogue and its reporter:
// the options, the usage text, the plan's entries, the start-up checks (writable, not an input,
// not another output, only splitstep's own file replaced, locked) and the reporter set follow.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "options/OutputInfo.hpp"
#include "report/OutputFiles.hpp"
#include "report/Reporter.hpp"

namespace splitstep {

struct OutputSpec {
  OutputInfo info;
  OutputKind kind;
  std::unique_ptr<Reporter> (*make)(const std::string& path);
};

// In the order --help lists them and the start-up checks take them.
std::span<const OutputSpec> outputCatalogue();

// The options' part of each entry, in the catalogue's order: what the option parser is handed.
std::span<const OutputInfo> outputInfos();

// The entry of output `name` ("json"); nullptr where there is none.
const OutputSpec* findOutput(std::string_view name);

}  // namespace splitstep
