#include "measure/CaseFields.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace splitstep {

std::string fieldText(const FieldValue& value) {
  struct Text {
    std::string operator()(const std::string& text) const { return text; }
    std::string operator()(std::int64_t integer) const { return std::to_string(integer); }
    std::string operator()(double number) const { return fmt::format("{}", number); }
    std::string operator()(const IntegerList& list) const {
      return fmt::format("{}", fmt::join(list, ";"));
    }
  };
  return std::visit(Text{}, value);
}

bool hasType(const FieldValue& value, FieldType type) {
  switch (type) {
    case FieldType::String:
      return std::holds_alternative<std::string>(value);
    case FieldType::Integer:
      return std::holds_alternative<std::int64_t>(value);
    case FieldType::Number:
      return std::holds_alternative<double>(value);
    case FieldType::Integers:
      return std::holds_alternative<IntegerList>(value);
  }
  return false;
}

}  // namespace splitstep
