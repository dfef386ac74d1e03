#include "common/TypedValue.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace splitstep {

namespace {

std::string listItemText(const TypedValue& item) {
  const auto* text = std::get_if<std::string>(&item.value);
  return text != nullptr ? fmt::format("{:?}", *text) : typedText(item);
}

}  // namespace

std::string typedText(const TypedValue& value) {
  struct Printer {
    std::string operator()(bool flag) const { return flag ? "true" : "false"; }
    std::string operator()(std::int64_t integer) const { return fmt::format("{}", integer); }
    // Every digit a double holds: different numbers must hash differently.
    std::string operator()(double number) const { return fmt::format("{}", number); }
    std::string operator()(const std::string& name) const { return name; }
    std::string operator()(const TypedValue::List& list) const {
      std::vector<std::string> items;
      for (const TypedValue& item : list) items.push_back(listItemText(item));
      return fmt::format("[{}]", fmt::join(items, ","));
    }
  };
  return std::visit(Printer{}, value.value);
}

}  // namespace splitstep
