#include "suites/SuiteCatalog.hpp"

#include <algorithm>

#include "comm/Collective.hpp"

namespace splitstep {
namespace {

std::vector<SuiteInfo> buildCatalogue() {
  std::vector<SuiteInfo> suites = {
      {"matmul", false, true, "GEMM throughput per dtype and shape: the compute ceiling"},
      {"membw", false, true, "copy, triad and host<->device copies: the memory ceiling"},
  };
  for (const CollectiveDescriptor* c : collectives()) {
    suites.push_back({c->name, true, c->in_default_run, c->help});
  }
  // Not a default: its default sizes are a GPU's, minutes per step on a CPU.
  suites.push_back(
      {"step", true, false, "a DDP-style training step, phase by phase, with gradient sync modes"});
  return suites;
}

}  // namespace

const std::vector<SuiteInfo>& suiteCatalog() {
  static const std::vector<SuiteInfo> catalogue = buildCatalogue();
  return catalogue;
}

const SuiteInfo* findSuite(std::string_view name) {
  const auto& catalogue = suiteCatalog();
  const auto it = std::find_if(catalogue.begin(), catalogue.end(),
                               [name](const SuiteInfo& s) { return s.name == name; });
  return it == catalogue.end() ? nullptr : &*it;
}

}  // namespace splitstep
