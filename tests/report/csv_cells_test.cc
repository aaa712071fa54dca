// The CSV cells pipegrid writes (common/csv_text.h) and the report reads back (sim/report/csv_reader.h):
// RFC 4180 quoting, so that a name holding a comma, a quote or a line break is one cell both ways.
#include <gtest/gtest.h>

#include <sstream>

#include "common/csv_text.h"
#include "error_of.h"
#include "sim/report/csv_reader.h"

namespace pipegrid::report {
namespace {

TEST(CsvCells, QuotedOnlyWhenTheyMustBe) {
  EXPECT_EQ(csv_cell("gpu0"), "gpu0");
  EXPECT_EQ(csv_cell(""), "");
  EXPECT_EQ(csv_cell("node 1 gpu'0"), "node 1 gpu'0");  // blanks and single quotes need none
  EXPECT_EQ(csv_cell("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_cell("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_cell("cr\r"), "\"cr\r\"");
}

TEST(CsvCells, WhatIsWrittenReadsBack) {
  const std::vector<std::string> names = {"gpu0", "a,b", "\"", "say \"hi\", twice", "two\nlines", "crlf\r\nend", ",",
                                          "\"\"", "é,ß"};
  std::string text = "name,after\n";
  for (const std::string& name : names) text += csv_cell(name) + ",x\n";
  std::istringstream in(text);
  CsvReader csv(in, "names.csv");
  const std::size_t name = csv.require("name"), after = csv.require("after");
  long line = 2;
  for (const std::string& expected : names) {
    ASSERT_TRUE(csv.next());
    EXPECT_EQ(csv.field(name), expected);
    EXPECT_EQ(csv.field(after), "x") << expected;
    EXPECT_EQ(csv.line(), line) << expected;  // a record's first line
    line += 1 + static_cast<long>(std::count(expected.begin(), expected.end(), '\n'));
  }
  EXPECT_FALSE(csv.next());
}

TEST(CsvCells, AByteOrderMarkBeforeTheHeaderIsSkipped) {
  std::istringstream in("\xEF\xBB\xBFstart,end\r\n1,2\r\n");
  CsvReader csv(in, "trace.csv");
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(csv.number(csv.require("start")), 1);
  EXPECT_EQ(csv.number(csv.require("end")), 2);
}

TEST(CsvCells, AnUnclosedQuoteEndsAtTheRecordLimit) {
  // A quote never closed would join every line after it: the record is refused at 64 KiB.
  std::string text = "name\n\"open\n";
  for (int k = 0; k < 20000; ++k) text += "0123456789\n";
  std::istringstream in(text);
  CsvReader csv(in, "bad.csv");
  EXPECT_EQ(test_support::error_of([&] { csv.next(); }), "bad.csv: line 2: longer than 65536 characters");
}

TEST(CsvCells, AValueInAMessageIsCut) {
  std::istringstream in("start\n" + std::string(1000, 'x') + "\n");
  CsvReader csv(in, "trace.csv");
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(test_support::error_of([&] { csv.number(0); }),
            "trace.csv: line 2: start: not a number: '" + std::string(80, 'x') + "…(1000 bytes)'");
}

}  // namespace
}  // namespace pipegrid::report
