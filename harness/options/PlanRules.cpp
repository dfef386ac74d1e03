// The rules that relate options to each other (OptionTable.hpp's applyPlanRules): a size sweep
// expanded into sizes, and settings that contradict each other refused, naming both.
#include <fmt/format.h>
#include <torch/version.h>

#include <algorithm>

#include "common/Units.hpp"
#include "models/Exported.hpp"
#include "models/ExportedBatch.hpp"
#include "options/OptionTable.hpp"

namespace splitstep {
namespace {

using Sources = std::map<std::string, OptionSource>;

OptionSource sourceOf(const Sources& sources, const std::string& name) {
  const auto it = sources.find(name);
  return it == sources.end() ? OptionSource::Default : it->second;
}

bool given(const Sources& sources, const std::string& name) {
  return sourceOf(sources, name) != OptionSource::Default;
}

// "--max-time 1.000 s (the CPU preset's)": an option and its value, saying where a value the
// user may not have typed came from.
std::string named(const Sources& sources, const std::string& name, const std::string& value) {
  switch (sourceOf(sources, name)) {
    case OptionSource::Default:
      return fmt::format("--{} {} (its default)", name, value);
    case OptionSource::Preset:
      return fmt::format("--{} {} (the CPU preset's)", name, value);
    case OptionSource::ConfigFile:
      return fmt::format("--{} {} (from the config file)", name, value);
    case OptionSource::CommandLine:
      break;
  }
  return fmt::format("--{} {}", name, value);
}

// --bytes, or a nccl-tests style sweep: --min-bytes, --max-bytes and --step-factor (-b -e -f).
// Where both are given, the one given on the command line wins over the config file's.
void resolveSizeSweep(PlanDraft& draft, const Sources& sources) {
  const SizeSweep& sweep = draft.sweep;
  if (!sweep.min_bytes && !sweep.max_bytes) return;
  const OptionSource list = sourceOf(sources, "bytes");
  const OptionSource bounds =
      std::max(sourceOf(sources, "min-bytes"), sourceOf(sources, "max-bytes"));
  if (list == OptionSource::CommandLine && bounds == OptionSource::CommandLine) {
    throw UsageError("--bytes: give a list or --min-bytes/--max-bytes, not both");
  }
  if (list > bounds) return;  // the list was given where it wins
  if (!sweep.min_bytes || !sweep.max_bytes) {
    throw UsageError("--min-bytes and --max-bytes go together");
  }
  if (*sweep.min_bytes > *sweep.max_bytes) {
    throw UsageError(fmt::format("{} is larger than {}: the sweep would be empty",
                                 named(sources, "min-bytes", formatBytes(*sweep.min_bytes)),
                                 named(sources, "max-bytes", formatBytes(*sweep.max_bytes))));
  }
  std::vector<std::uint64_t> sizes;
  const auto factor = static_cast<std::uint64_t>(sweep.factor);
  for (std::uint64_t size = *sweep.min_bytes; size <= *sweep.max_bytes; size *= factor) {
    const std::uint64_t whole = size / 4 * 4;  // whole fp32 elements, as --bytes demands
    if (sizes.empty() || sizes.back() != whole) sizes.push_back(whole);
  }
  draft.plan.collectives.bytes = std::move(sizes);
}

// Measurement settings that cannot all hold: the Measurer would follow one and silently drop
// the other.
void refuseContradictoryMeasurement(const MeasureSettings& m, const Sources& sources) {
  const auto seconds = [&sources](const char* name, double value) {
    return named(sources, name, formatSeconds(value));
  };
  // With a fixed --samples, neither bound of the stopping rule applies.
  if (m.samples == 0 && m.min_time > m.max_time) {
    throw UsageError(fmt::format("{} is longer than {}: every case would stop before it",
                                 seconds("min-time", m.min_time), seconds("max-time", m.max_time)));
  }
  // Autorange makes one sample this long: a case capped below it would end after one sample.
  if (m.samples == 0 && m.loops == 0 && m.min_sample_time > m.max_time) {
    throw UsageError(fmt::format("{} is longer than {}: one sample would outlast the case",
                                 seconds("min-sample-time", m.min_sample_time),
                                 seconds("max-time", m.max_time)));
  }
  if (m.l2_flush && m.loops > 1) {
    throw UsageError(fmt::format("--l2-flush times one execution per sample: {} contradicts it",
                                 named(sources, "loops", std::to_string(m.loops))));
  }
  if (m.loops > 0 && given(sources, "min-sample-time")) {
    throw UsageError(
        fmt::format("{} fixes the executions per sample: autorange's {} would not be used",
                    named(sources, "loops", std::to_string(m.loops)),
                    seconds("min-sample-time", m.min_sample_time)));
  }
  if (m.samples > 0 && given(sources, "min-samples") && m.samples < m.min_samples) {
    throw UsageError(fmt::format("{} is fewer than {}",
                                 named(sources, "samples", std::to_string(m.samples)),
                                 named(sources, "min-samples", std::to_string(m.min_samples))));
  }
}

// --batch-file, checked here, once --model-file has read its archive. Every plan with an archive
// sets the batch file, so that no earlier plan's is left behind.
void refuseBadBatchFile(const StepPlan& s) {
  if (s.model_file.empty()) {
    if (!s.batch_file.empty()) {
      throw UsageError("--batch-file: the batch of an exported model, goes with --model-file");
    }
    return;
  }
  if (s.batch_file.empty()) return useExportedBatchFile(std::nullopt);
  try {
    useExportedBatchFile(s.batch_file);
  } catch (const std::invalid_argument& error) {
    // The checker names the file first: shown printable and bounded, as option values are.
    std::string why = error.what();
    if (why.starts_with(s.batch_file)) {
      why = printable(s.batch_file) + why.substr(s.batch_file.size());
    }
    throw UsageError("--batch-file: " + why);
  }
}

}  // namespace

void applyPlanRules(PlanDraft& draft, const Sources& sources) {
  resolveSizeSweep(draft, sources);
  refuseContradictoryMeasurement(draft.plan.measure, sources);
  if (!draft.plan.step.model_file.empty()) {
    if (sourceOf(sources, "step-models") == OptionSource::CommandLine) {
      throw UsageError(
          "--model-file: trains the exported model in place of --step-models; "
          "give one of them");
    }
    draft.plan.step.models = {&kExportedModel};
  }
  refuseBadBatchFile(draft.plan.step);
  const StepPlan& s = draft.plan.step;
  if (!s.model_file.empty() && s.archive_torch == ArchiveTorch::Same) {
    // The version is the archive's text: shown printable and bounded, as option values are.
    if (const auto other =
            otherTorchRelease(printable(exportedModelFacts().torch_version), TORCH_VERSION)) {
      throw UsageError(fmt::format(
          "--model-file: {}: {}, whose export format and operators may differ: export it again "
          "under torch {} (pip install torch=={}), or give --archive-torch any to run it anyway",
          printable(s.model_file), *other, torchRelease(TORCH_VERSION), TORCH_VERSION));
    }
  }
  if (s.momentum != 0 && s.optimizer != StepOptimizer::Sgd) {
    throw UsageError("--momentum: applies to sgd only");
  }
  // One without the other delays nobody.
  if (s.delay_rank >= 0 && s.delay == 0) {
    throw UsageError(
        fmt::format("--delay-rank {} delays nobody without a --delay-ms above 0", s.delay_rank));
  }
  if (s.delay_rank < 0 && s.delay > 0) {
    throw UsageError(
        fmt::format("--delay-ms {} delays nobody without a --delay-rank", s.delay * 1000));
  }
  const CollectivesPlan& c = draft.plan.collectives;
  if ((c.slow_rank >= 0) != (c.slow_seconds > 0)) {
    throw UsageError("--test-slow-rank: goes with a --test-slow-ms above 0");
  }
  for (const StepModelDescriptor* model : stepModels()) {
    if (model->shape_refusal == nullptr) continue;
    if (const auto refusal = model->shape_refusal(s.shape)) throw UsageError(*refusal);
  }
}

}  // namespace splitstep
