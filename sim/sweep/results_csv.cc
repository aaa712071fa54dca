#include "sim/sweep/results_csv.h"

#include <fmt/format.h>
#include <fstream>

#include "common/csv_text.h"
#include "sim/output/atomic_file.h"
#include "sim/output/output_files.h"

namespace pipegrid::sweep {

std::span<const std::string_view> metric_columns() {
  // id, status and message come first; the sweep's axes go between id and status.
  return output::output_file(output::OutputFile::Results).columns.subspan(3);
}

namespace {

// A cell of results.csv, which its reader (split_csv) takes a line at a time: line breaks become
// blanks, then RFC 4180 quoting as every CSV cell pipegrid writes.
std::string quoted(std::string field) {
  for (char& c : field)
    if (c == '\n' || c == '\r') c = ' ';
  return csv_cell(field);
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields(1);
  bool in_quotes = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      in_quotes = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

}  // namespace

std::string results_header(const std::vector<std::string>& axes) {
  const std::span<const std::string_view> columns = output::output_file(output::OutputFile::Results).columns;
  std::string header(columns[0]);
  for (const std::string& axis : axes) {
    header += ',';
    header += quoted(axis);
  }
  header += fmt::format(",{},{}", columns[1], columns[2]);
  for (std::string_view metric : metric_columns()) header += fmt::format(",{}", metric);
  return header;
}

std::string results_line(const ResultRow& row) {
  std::string line = row.id;
  for (const std::string& value : row.values) {
    line += ',';
    line += quoted(value);
  }
  line += fmt::format(",{},{}", row.status, quoted(row.message));
  for (std::string_view metric : metric_columns()) {
    const auto it = row.metrics.find(std::string(metric));
    line += ',';
    if (it != row.metrics.end()) line += it->second;
  }
  return line;
}

std::vector<ResultRow> read_results(const std::string& path, const std::vector<std::string>& axes) {
  std::ifstream in(path);
  std::vector<ResultRow> rows;
  std::string line;
  if (!in || !std::getline(in, line) || line != results_header(axes)) return rows;
  const std::size_t columns = 1 + axes.size() + 2 + metric_columns().size();
  while (std::getline(in, line)) {
    const std::vector<std::string> fields = split_csv(line);
    if (fields.size() != columns) continue;  // a row cut short by a kill: its run reruns
    ResultRow row;
    row.id = fields[0];
    row.values.assign(fields.begin() + 1, fields.begin() + 1 + static_cast<std::ptrdiff_t>(axes.size()));
    row.status = fields[1 + axes.size()];
    row.message = fields[2 + axes.size()];
    for (std::size_t m = 0; m < metric_columns().size(); ++m)
      if (!fields[3 + axes.size() + m].empty()) row.metrics[std::string(metric_columns()[m])] = fields[3 + axes.size() + m];
    rows.push_back(std::move(row));
  }
  return rows;
}

void write_results(const std::string& path, const std::vector<std::string>& axes, const std::vector<ResultRow>& rows) {
  output::AtomicFile out(path);
  out.write(results_header(axes) + '\n');
  for (const ResultRow& row : rows) out.write(results_line(row) + '\n');
  out.commit();
}

}  // namespace pipegrid::sweep
