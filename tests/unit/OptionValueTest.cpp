#include "options/OptionValue.hpp"

#include <gtest/gtest.h>

#include <string>

namespace splitstep {
namespace {

TEST(OptionValue, ControlBytesAreShownNotSentAndNothingElseChanges) {
  // What a batch file's type name printed on a terminal: erase the line, back to its start.
  const std::string hostile = "type \x1b[2K\rsplitstep: accepted\x7f";
  EXPECT_EQ(withControlBytesShown(hostile), "type \\x1b[2K\\x0dsplitstep: accepted\\x7f");
  const std::string plain = "résumé.pt2: is 6.00 GiB, more than the 4.00 GiB a batch file may be";
  EXPECT_EQ(withControlBytesShown(plain), plain) << "UTF-8 and long texts are kept whole";
  EXPECT_EQ(withControlBytesShown(std::string("a\0b\nc", 5)), "a\\x00b\\x0ac");
}

TEST(OptionValue, PrintableEscapesEveryByteOutsideAsciiAndShortens) {
  EXPECT_EQ(printable("ok.pt2"), "ok.pt2");
  EXPECT_EQ(printable("\x1b\xc3\xa9"), "\\x1b\\xc3\\xa9");
  EXPECT_EQ(printable(std::string(100, 'n'), 10), "nnnnnnnnnn... (100 characters)");
}

}  // namespace
}  // namespace splitstep
