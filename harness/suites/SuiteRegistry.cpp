#include <map>
#include <stdexcept>

#include "suites/Suite.hpp"

namespace splitstep {
namespace {

// Filled by SuiteRegistrations during static initialisation; a function-local static, so that
// it exists before the first registration whatever order the sources initialise in.
std::map<std::string, SuiteFactory, std::less<>>& factories() {
  static std::map<std::string, SuiteFactory, std::less<>> registered;
  return registered;
}

}  // namespace

SuiteRegistration::SuiteRegistration(std::string_view name, SuiteFactory factory) {
  if (!factories().emplace(std::string(name), factory).second) {
    throw std::logic_error("suite registered twice: " + std::string(name));
  }
}

std::unique_ptr<Suite> makeSuite(const std::string& name, const RunPlan& plan) {
  const SuiteInfo* info = findSuite(name);
  const auto it = factories().find(name);
  if (info == nullptr || it == factories().end()) {
    throw std::invalid_argument("unknown suite: " + name);
  }
  return it->second(*info, plan);
}

bool usesCommunicators(const std::string& name) {
  const SuiteInfo* info = findSuite(name);
  return info != nullptr && info->needs_communicators;
}

std::vector<std::string> unregisteredSuites() {
  std::vector<std::string> missing;
  for (const SuiteInfo& info : suiteCatalog()) {
    if (factories().find(info.name) == factories().end()) missing.emplace_back(info.name);
  }
  return missing;
}

}  // namespace splitstep
