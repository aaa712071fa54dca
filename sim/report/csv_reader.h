// The CSV files pipegrid writes (trace.csv, links.csv), read back line by line for the HTML report:
// columns found by their header names, so that columns added later (trace.csv's chunk and direction)
// are read when present and files without them still read.
#pragma once

#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipegrid::report {

class CsvReader {
 public:
  /// Reads the header line; `name` is how errors name the file. InputError if it has no header.
  CsvReader(std::istream& in, std::string name);

  std::optional<std::size_t> column(std::string_view header) const;
  /// The column's index; InputError "NAME: no column 'x' (columns: a,b,…)" when the header lacks it.
  std::size_t require(std::string_view header) const;

  /// The next non-empty record split into fields; false at the end. RFC 4180: a cell in double quotes
  /// may hold commas, line breaks and doubled quotes (common/csv_text.h writes them so).
  bool next();
  /// Field `index` of the current line; "" when the line is shorter.
  std::string_view field(std::size_t index) const;
  /// The field as a finite number; InputError "NAME: line N: start: not a number: 'x'".
  double number(std::size_t index) const;
  /// The field as an integer; an empty field gives `empty`.
  long integer(std::size_t index, long empty) const;
  /// The number of the current record's first line in the file (the header is line 1).
  long line() const { return line_number_; }

 private:
  std::istream& in_;
  std::string name_;
  std::vector<std::string> header_;
  std::vector<std::string> fields_;
  std::string line_;
  long line_number_ = 0;
  long lines_read_ = 0;

  std::string where(std::size_t index) const;
};

}  // namespace pipegrid::report
