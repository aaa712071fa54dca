// What an error line shows of a value: control bytes escaped (a NUL once ended the line before its
// rule), long values cut, UTF-8 kept; and a Path option refusing a directory.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/input_error.h"
#include "common/message_text.h"
#include "error_of.h"
#include "sim/input/option_schema.h"
#include "sim/input/option_values.h"

namespace pipegrid {
namespace {

TEST(MessageText, ControlBytesAndBrokenUtf8AreEscaped) {
  using namespace std::string_literals;
  EXPECT_EQ(one_line("a\0b"s), "a\\0b");
  EXPECT_EQ(one_line("line\nnext\r\tx\x7f\x01"), "line\\nnext\\r\\tx\\x7f\\x01");
  EXPECT_EQ(one_line("α-β × 2"), "α-β × 2");                     // UTF-8 as is
  EXPECT_EQ(one_line("\xd0\x00" "8"s), "\\xd0\\08");                // the option_value seed: a lead byte, a NUL
  EXPECT_EQ(one_line("\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80"), "\\xc0\\xaf \\xed\\xa0\\x80 \\xf4\\x90\\x80\\x80");
  EXPECT_EQ(one_line("\xe2\x82"), "\\xe2\\x82");                   // a character cut short
}

TEST(MessageText, LongValuesAreCutWithTheirSize) {
  EXPECT_EQ(shown(std::string(80, 'x')), std::string(80, 'x'));
  EXPECT_EQ(shown(std::string(81, 'x')), std::string(80, 'x') + "…(81 bytes)");
  EXPECT_EQ(shown(std::string(10'000'000, '7')), std::string(80, '7') + "…(10000000 bytes)");
  // Never half a character: 79 bytes then a two-byte one stops at 79.
  EXPECT_EQ(shown(std::string(79, 'x') + "éé"), std::string(79, 'x') + "…(83 bytes)");
  // Escapes count the source's bytes, not the escape's.
  EXPECT_EQ(shown(std::string(100, '\0')), [] {
    std::string escaped;
    for (int k = 0; k < 80; ++k) escaped += "\\0";
    return escaped + "…(100 bytes)";
  }());
}

TEST(MessageText, AnInputErrorIsOneWholeLine) {
  using namespace std::string_literals;
  const InputError error("--schedule-file a\0b: must name a file\nsecond"s);
  EXPECT_EQ(std::string(error.what()), "--schedule-file a\\0b: must name a file\\nsecond");
}

TEST(MessageText, OptionValuesInMessagesAreShown) {
  using namespace std::string_literals;
  input::OptionValues values(input::Command::Schedule);
  const input::OptionSpec& pp = *input::find_option(input::Command::Schedule, "pp");
  EXPECT_EQ(test_support::error_of([&] { values.set_text(pp, "\0" "8"s); }), "--pp \\08: expected an integer");
  EXPECT_EQ(test_support::error_of([&] { values.set_text(pp, "x" + std::string(1000, '9')); }),
            "--pp x" + std::string(79, '9') + "…(1001 bytes): expected an integer");
}

TEST(MessageText, APathOptionRefusesADirectory) {
  input::OptionValues values(input::Command::Check);
  const std::string dir = std::filesystem::temp_directory_path().string();
  EXPECT_EQ(test_support::error_of([&] { values.set_text(*input::find_option(input::Command::Check, "file"), dir); }),
            dir + ": is a directory, expected a file");
  input::OptionValues simulate(input::Command::Simulate);
  EXPECT_EQ(test_support::error_of([&] { simulate.set_text(*input::find_option(input::Command::Simulate, "platform"), dir); }),
            "--platform " + dir + ": is a directory, expected a file");
}

}  // namespace
}  // namespace pipegrid
