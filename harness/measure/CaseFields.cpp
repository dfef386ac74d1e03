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

FieldType typeOf(const FieldValue& value) {
  struct Type {
    FieldType operator()(const std::string&) const { return FieldType::String; }
    FieldType operator()(std::int64_t) const { return FieldType::Integer; }
    FieldType operator()(double) const { return FieldType::Number; }
    FieldType operator()(const IntegerList&) const { return FieldType::Integers; }
  };
  return std::visit(Type{}, value);
}

bool hasType(const FieldValue& value, FieldType type) { return typeOf(value) == type; }

}  // namespace splitstep
