// A case schema: the typed fields a suite family's cases carry and the rates it derives, declared
// once beside the struct that encodes and decodes them (CollectiveCase, StepCase, ...). Results
// files list every family's schema in their catalogue, so that readers need not know them.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "cases/Rates.hpp"
#include "measure/CaseFields.hpp"

namespace splitstep {

struct CaseFamily {
  std::string_view name;
  std::span<const FieldSpec> fields;  // required and optional fields, in the order tables show
  std::span<const RateSpec> rates;
  // The series that are parts of a whole case (`part_of`), in the order they happen: a step's
  // phases. Empty where a family's cases have no parts.
  std::span<const std::string_view> parts = {};
};

// Why `fields` do not follow `family`: a field it does not declare, or one of another type;
// empty when they follow it. Optional fields may be absent.
std::string nonConforming(const CaseFields& fields, const CaseFamily& family);

}  // namespace splitstep
