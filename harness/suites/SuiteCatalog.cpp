#include "suites/SuiteCatalog.hpp"

#include <algorithm>

#include "comm/Collective.hpp"
#include "suites/MatmulSuite.hpp"
#include "suites/MembwSuite.hpp"
#include "suites/StepSuite.hpp"

namespace splitstep {
namespace {

std::vector<SuiteInfo> buildCatalogue() {
  std::vector<SuiteInfo> suites = {kMatmulSuite, kMembwSuite};
  for (const CollectiveDescriptor* c : collectives()) {
    suites.push_back({c->name, true, c->in_default_run, c->help});
  }
  suites.push_back(kStepSuite);
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
