// The text an option was given, and the parsers that turn it into a value of the plan. Every
// failure is a UsageError of one line naming the option and the reason.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/EnumNames.hpp"

namespace splitstep {

// Bad input: the message is one line naming the option and the reason.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `text` shortened to `limit` characters and with every byte outside printable ASCII escaped
// (\x1b, \n, ...), so that an error message stays one readable line whatever was given.
std::string printable(std::string_view text, std::size_t limit = 80);
// `text` whole, with each control byte (below 0x20, and 0x7f) shown as "\x1b" and UTF-8 kept:
// what a terminal would act on (erase the line, move the cursor), quoted from an archive, a batch
// file, a config or the environment, is shown instead of sent.
std::string withControlBytesShown(std::string_view text);

// "64K" -> 65536: a byte count with an optional binary suffix K, M, G (also KiB, MiB, GiB),
// as nccl-tests reads -b/-e. Throws UsageError naming `option`.
std::uint64_t parseByteSize(const std::string& option, const std::string& text);

// "2ms" -> 0.002: seconds, with an optional unit ns, us, ms, s, min. Throws UsageError.
double parseDuration(const std::string& option, const std::string& text);

class OptionValue {
 public:
  OptionValue(std::string_view option, std::string text)
      : option_(option), text_(std::move(text)) {}

  const std::string& text() const { return text_; }
  std::string_view option() const { return option_; }

  // Throws UsageError "--option: reason".
  [[noreturn]] void fail(std::string_view reason) const;

  // An integer in [min, max].
  std::int64_t integer(std::int64_t min, std::int64_t max) const;
  // A count of executions or samples: an integer in [min, 1,000,000].
  int count(int min) const;
  // A finite number; `accept` says which, `what` names them in the error ("a positive number").
  double number(bool (*accept)(double), std::string_view what) const;
  // A duration in [min, max] seconds.
  double seconds(double min, double max) const;
  // "0.5%" or "0.5" -> 0.005: a percentage in (0, 100].
  double percent() const;
  // on or off.
  bool onOff() const;
  // A path to write: given, so not empty (an empty one would silently write nothing).
  const std::string& path() const;
  // A positive number of MiB (decimals allowed), rounded to whole bytes, in [min, max] bytes.
  std::uint64_t mebibytes(std::uint64_t min, std::uint64_t max) const;
  // A comma-separated list without empty entries or duplicates ("given twice").
  std::vector<std::string> list() const;
  // A comma-separated list of byte counts, each a multiple of `granule` up to `max`.
  std::vector<std::uint64_t> byteList(std::uint64_t granule, std::uint64_t max) const;

  // Throws UsageError "--option: unknown NOUN 'item' (did you mean 'x'?) (choices)", `choices`
  // being the valid names joined by ", ", the closest named where one is close.
  [[noreturn]] void failUnknown(std::string_view noun, const std::string& item,
                                const std::string& choices) const;

  template <NamedEnum Enum>
  Enum choice(std::string_view noun = "value") const {
    return choiceOf<Enum>(text_, noun);
  }
  template <NamedEnum Enum>
  std::vector<Enum> choices() const {
    std::vector<Enum> values;
    for (const std::string& item : list()) values.push_back(choiceOf<Enum>(item, "value"));
    return values;
  }

 private:
  template <NamedEnum Enum>
  Enum choiceOf(const std::string& item, std::string_view noun) const {
    if (const auto value = enumFromString<Enum>(item)) return *value;
    failUnknown(noun, item, enumChoices<Enum>());
  }

  std::string_view option_;
  std::string text_;
};

}  // namespace splitstep
