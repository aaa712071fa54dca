// The text cells of the CSV files pipegrid writes (trace.csv, links.csv, links_timeline.csv, a sweep's
// results.csv), quoted as RFC 4180 says, so that a host or link name holding a comma, a quote or a
// line break reads back as one cell.
#pragma once

#include <string>
#include <string_view>

namespace pipegrid {

/// The cell as written: as is, unless it holds a comma, a double quote, CR or LF; then in double
/// quotes, each inner quote doubled (RFC 4180, section 2, rules 6 and 7).
std::string csv_cell(std::string_view text);

}  // namespace pipegrid
