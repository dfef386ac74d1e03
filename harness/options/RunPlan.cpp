#include "options/RunPlan.hpp"

#include "options/OptionTable.hpp"

#include <fmt/format.h>

namespace splitstep {

std::string toString(const MatmulShape& shape) {
  if (shape.m == shape.n && shape.n == shape.k) return std::to_string(shape.n);
  return fmt::format("{}x{}x{}", shape.m, shape.n, shape.k);
}

TypedFields RunPlan::entries() const {
  TypedValue::List suite_names;
  for (const std::string& suite : suites) suite_names.push_back(typedName(suite));
  TypedFields entries = {{"suites", typedList(std::move(suite_names))},
                         {"config", typedName(config_file)}};
  for (const OptionSpec& spec : optionTable()) {
    if (spec.canonical != nullptr) entries.emplace_back(spec.name, spec.canonical(*this));
  }
  // The output files come from the catalogue the plan was parsed with, not from the table.
  for (const OutputFile& file : output.files) entries.emplace_back(file.name, typedName(file.path));
  return entries;
}

std::string OutputPlan::path(std::string_view name) const {
  for (const OutputFile& file : files) {
    if (file.name == name) return file.path;
  }
  return {};
}

std::optional<std::string> rankOutsideWorld(const RunPlan& plan, int world_size) {
  const std::pair<const char*, int> named[] = {
      {"--delay-rank", plan.step.delay_rank},
      {"--test-slow-rank", plan.collectives.slow_rank},
      {"--test-spoil-rank", plan.collectives.spoil_rank},
      {"--test-stall-rank", plan.launch.stall_rank},
      // The fault's rank is read only when there is a fault.
      {"--test-fault-rank", plan.step.fault == SyncFault::None ? -1 : plan.step.fault_rank}};
  for (const auto& [option, rank] : named) {
    if (rank >= world_size) {
      return fmt::format("{}: rank {} is not in this run of {} rank{} (0 to {})", option, rank,
                         world_size, world_size == 1 ? "" : "s", world_size - 1);
    }
  }
  return std::nullopt;
}

std::uint64_t planHash(const RunPlan& plan, std::string_view build_id) {
  std::uint64_t hash = 14695981039346656037ull;
  auto mix = [&hash](std::string_view text) {
    for (unsigned char c : text) {
      hash ^= c;
      hash *= 1099511628211ull;
    }
    hash ^= 0xff;  // separator, so ("ab","c") and ("a","bc") differ
    hash *= 1099511628211ull;
  };
  mix(build_id);
  for (const auto& [key, value] : plan.entries()) {
    mix(key);
    mix(typedText(value));
  }
  return hash;
}

}  // namespace splitstep
