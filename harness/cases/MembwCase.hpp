// The case schema of the membw suite: one kind of copy over arrays of one size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cases/CaseFamily.hpp"

namespace splitstep {

struct MembwCase {
  std::string kind;         // "copy", "triad", "h2d pinned", ...
  std::uint64_t bytes = 0;  // the size of each array

  bool operator==(const MembwCase&) const = default;

  CaseFields encode() const;
  static std::optional<MembwCase> decode(const CaseFields& fields);
  static const CaseFamily& family();
};

}  // namespace splitstep
