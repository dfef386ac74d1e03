// Every case schema, and which one each suite writes: what a results file's catalogue lists so
// that its readers learn the suites, collectives and fields from the file.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cases/CaseFamily.hpp"

namespace splitstep {

// Every case family: collective, matmul, membw, step.
const std::vector<const CaseFamily*>& caseFamilies();

// The family called `name`; nullptr for none.
const CaseFamily* findFamily(std::string_view name);

// The family whose cases `suite` writes (every collective's suite writes collective cases);
// nullptr for a suite splitstep does not know.
const CaseFamily* familyOfSuite(std::string_view suite);

// Each suite of `suites` with its family's name, in the order given.
std::vector<std::pair<std::string, std::string>> suiteFamilies(
    const std::vector<std::string>& suites);

// The names of every collective this build knows, in the catalogue's order.
std::vector<std::string> collectiveNames();

}  // namespace splitstep
