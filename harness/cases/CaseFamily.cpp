#include "cases/CaseFamily.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace splitstep {

std::string nonConforming(const CaseFields& fields, const CaseFamily& family) {
  if (fields.family != family.name)
    return fmt::format("of family '{}', not '{}'", fields.family, family.name);
  for (const auto& [name, value] : fields.values) {
    const auto spec = std::find_if(family.fields.begin(), family.fields.end(),
                                   [&](const FieldSpec& f) { return f.name == name; });
    if (spec == family.fields.end())
      return fmt::format("field '{}' is not declared by {}", name, family.name);
    if (!hasType(value, spec->type))
      return fmt::format("field '{}' is not of its declared type", name);
  }
  return {};
}

}  // namespace splitstep
