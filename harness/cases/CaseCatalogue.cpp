#include "cases/CaseCatalogue.hpp"

#include "cases/CollectiveCase.hpp"
#include "cases/MatmulCase.hpp"
#include "cases/MembwCase.hpp"
#include "cases/StepCase.hpp"
#include "comm/Collective.hpp"

namespace splitstep {

const std::vector<const CaseFamily*>& caseFamilies() {
  static const std::vector<const CaseFamily*> families = {
      &CollectiveCase::family(), &MatmulCase::family(), &MembwCase::family(), &StepCase::family()};
  return families;
}

const CaseFamily* findFamily(std::string_view name) {
  for (const CaseFamily* family : caseFamilies()) {
    if (family->name == name) return family;
  }
  return nullptr;
}

const CaseFamily* familyOfSuite(std::string_view suite) {
  if (findCollective(suite) != nullptr) return &CollectiveCase::family();
  // The other suites' names are their families' names.
  const CaseFamily* family = findFamily(suite);
  return family == &CollectiveCase::family() ? nullptr : family;
}

std::vector<std::pair<std::string, std::string>> suiteFamilies(
    const std::vector<std::string>& suites) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const std::string& suite : suites) {
    const CaseFamily* family = familyOfSuite(suite);
    pairs.emplace_back(suite, family ? std::string(family->name) : std::string());
  }
  return pairs;
}

std::vector<std::string> collectiveNames() {
  std::vector<std::string> names;
  for (const CollectiveDescriptor* c : collectives()) names.emplace_back(c->name);
  return names;
}

}  // namespace splitstep
