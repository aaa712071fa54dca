#include "sim/report/csv_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "common/input_error.h"
#include "common/input_file.h"
#include "common/message_text.h"

namespace pipegrid::report {

namespace {

// A record longer than this is not one pipegrid wrote: refused rather than held in memory.
constexpr std::size_t kMaxLine = 1 << 16;

// Whether text holds an odd number of quotes: RFC 4180 doubles a quote inside a quoted cell, so a
// record read so far with an odd count ends inside one, and the line break was part of the cell.
bool odd_quotes(std::string_view text) { return std::count(text.begin(), text.end(), '"') % 2 == 1; }

void split(const std::string& line, std::vector<std::string>& fields) {
  fields.clear();
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') field += c;
      else if (i + 1 < line.size() && line[i + 1] == '"') field += line[++i];
      else quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c != '\r') {  // CRLF files: the CR before each line break
      field += c;
    }
  }
  fields.push_back(std::move(field));
}

}  // namespace

CsvReader::CsvReader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {
  skip_byte_order_mark(in_);  // a file saved again by a spreadsheet
  if (!next()) throw InputError(fmt::format("{}: empty (no header line)", name_));
  header_ = fields_;
}

std::optional<std::size_t> CsvReader::column(std::string_view header) const {
  for (std::size_t i = 0; i < header_.size(); ++i)
    if (header_[i] == header) return i;
  return std::nullopt;
}

std::size_t CsvReader::require(std::string_view header) const {
  if (const auto i = column(header)) return *i;
  throw InputError(fmt::format("{}: no column '{}' (columns: {})", name_, header,
                               shown(fmt::format("{}", fmt::join(header_, ",")))));
}

bool CsvReader::next() {
  while (std::getline(in_, line_)) {
    line_number_ = ++lines_read_;
    std::string more;
    for (bool open = odd_quotes(line_); open && line_.size() <= kMaxLine && std::getline(in_, more);) {
      ++lines_read_;
      line_ += '\n';
      line_ += more;
      open ^= odd_quotes(more);
    }
    if (line_.size() > kMaxLine)
      throw InputError(fmt::format("{}: line {}: longer than {} characters", name_, line_number_, kMaxLine));
    if (line_.empty() || line_ == "\r") continue;
    split(line_, fields_);
    return true;
  }
  return false;
}

std::string_view CsvReader::field(std::size_t index) const {
  return index < fields_.size() ? std::string_view(fields_[index]) : std::string_view();
}

std::string CsvReader::where(std::size_t index) const {
  return fmt::format("{}: line {}: {}", name_, line_number_, index < header_.size() ? header_[index] : "?");
}

double CsvReader::number(std::size_t index) const {
  const std::string_view text = field(index);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    throw InputError(fmt::format("{}: not a number: '{}'", where(index), shown(text)));
  return value;
}

long CsvReader::integer(std::size_t index, long empty) const {
  const std::string_view text = field(index);
  if (text.empty()) return empty;
  long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    throw InputError(fmt::format("{}: not an integer: '{}'", where(index), shown(text)));
  return value;
}

}  // namespace pipegrid::report
