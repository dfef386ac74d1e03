// The validated, immutable description of one run: what every rank must agree on. Each suite's
// part, with the enums it is made of, has a header of its own (options/<Suite>Plan.hpp), which
// is what a layer below the options' users includes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/EnumNames.hpp"
#include "common/TypedValue.hpp"
#include "measure/MeasureSettings.hpp"
#include "options/CollectivesPlan.hpp"
#include "options/LaunchPlan.hpp"
#include "options/MatmulPlan.hpp"
#include "options/MembwPlan.hpp"
#include "options/ProjectionPlan.hpp"
#include "options/StepPlan.hpp"

namespace splitstep {

// The terminal report's layout: splitstep's compact tables, or nccl-tests' table of the
// collectives (which nccl-tests' readers and parsers take as nccl-tests' own output).
enum class ConsoleFormat { Console, NcclTests };

template <>
struct EnumNames<ConsoleFormat> {
  static constexpr std::array values = {
      std::pair{ConsoleFormat::Console, std::string_view("console")},
      std::pair{ConsoleFormat::NcclTests, std::string_view("nccl-tests")}};
};

// An output file: the output's name in the catalogue (report/OutputCatalogue) and its path.
struct OutputFile {
  std::string name;  // "json"
  std::string path;  // empty: not written
};

struct OutputPlan {
  // Every output of the catalogue, in its order, each with the path it is written to.
  std::vector<OutputFile> files;
  // An output asked for draws every rank's timeline (OutputInfo::needs_timelines).
  bool timelines = false;
  bool quiet = false;      // no progress line on a terminal's stderr
  bool overwrite = false;  // the outputs may replace files splitstep did not write
  bool verbose = false;    // the console adds %timeit lines, per-rank figures and the models
  ConsoleFormat format = ConsoleFormat::Console;
  // A verdict item below expected fails the run (derived/RunStatus.hpp), for a node check.
  bool fail_below_expected = false;

  // The path output `name` is written to; empty where it is not written.
  std::string path(std::string_view name) const;
};

// GPU telemetry read on a thread of each rank while cases run (telemetry/TelemetrySampler).
struct TelemetryPlan {
  bool enabled = true;
  double interval = 0.02;  // seconds between readings
};

struct RunPlan {
  std::vector<std::string> suites;
  MeasureSettings measure;
  MatmulPlan matmul;
  MembwPlan membw;
  CollectivesPlan collectives;
  StepPlan step;
  ProjectionPlan projection;
  LaunchPlan launch;
  OutputPlan output;
  TelemetryPlan telemetry;
  std::string config_file;  // empty when none was read

  // Every setting as (option name, typed value), in a fixed order: what is hashed and written to
  // the JSON report.
  TypedFields entries() const;
};

// Why a rank the plan names (--delay-rank, the fault hooks' ranks) is not one of `world_size`
// ranks: a delay or fault that would never happen; nullopt when every named rank exists.
std::optional<std::string> rankOutsideWorld(const RunPlan& plan, int world_size);

// FNV-1a over the plan's entries and `build_id` (version and revision): equal exactly when two
// ranks would run the same workload with the same binary.
std::uint64_t planHash(const RunPlan& plan, std::string_view build_id);

}  // namespace splitstep
