// The action notation: what parses, what does not, and that writing reads back.
#include <gtest/gtest.h>

#include "schedules/action.h"

namespace pipegrid {
namespace {

TEST(ActionNotation, ParsesTheFourKindsAndPairs) {
  EXPECT_EQ(parse_op("2F0"), Op(Action{2, 0, Kind::F}));
  EXPECT_EQ(parse_op("3B1"), Op(Action{3, 1, Kind::B}));
  EXPECT_EQ(parse_op("0I4"), Op(Action{0, 4, Kind::I}));
  EXPECT_EQ(parse_op("0W4"), Op(Action{0, 4, Kind::W}));
  EXPECT_EQ(parse_op("12F345"), Op(Action{12, 345, Kind::F}));
  EXPECT_EQ(parse_op("(0F7;7B3)"), Op(Action{0, 7, Kind::F}, Action{7, 3, Kind::B}));
  EXPECT_EQ(parse_op("(7F4;0B0)OVERLAP_F_B"), Op(Action{7, 4, Kind::F}, Action{0, 0, Kind::B}));
}

TEST(ActionNotation, RejectsWhatIsNotAnAction) {
  for (const char* bad : {"", "F0", "0X1", "0F", "-1F0", "0F-1", "0F1x", " 0F1", "0f1", "(0F1)", "(0F1;)", "(;0B1)",
                          "(0F1;0B1", "0F1;0B1", "0F99999999999", "(0F1;0B1)OVERLAP", "0SEND_F1"})
    EXPECT_FALSE(parse_op(bad).has_value()) << '"' << bad << '"';
}

TEST(ActionNotation, WritesWhatItReads) {
  for (const char* text : {"2F0", "3B1", "0I4", "0W4", "(0F7;7B3)", "(3I2;1F9)"})
    EXPECT_EQ(to_string(*parse_op(text)), text);
}

}  // namespace
}  // namespace pipegrid
