// The columns of trace.csv, one contract for every engine that writes one: the SimGrid executor
// (`simulate`, sim/exec/trace_writer.h) and the contention-free engines (`schedule`, `check`,
// sim/run/schedule_trace.h). experiments/plot/trace_data.py reads exactly these; README documents them.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace pipegrid {

/// chunk: the action's virtual stage among its rank's (0, 1, …; empty on comm rows); direction:
/// DualPipe's `down` or `up` (empty for other schedules) — schedules/stage_chunks.h.
inline constexpr std::array<std::string_view, 16> kTraceCsvColumns = {
    "gpu",   "host",       "node", "tp",    "dp",    "pp",  "track", "kind",
    "stage", "microbatch", "peer", "bytes", "start", "end", "chunk", "direction"};

/// The header line of trace.csv, newline included.
inline std::string trace_csv_header() {
  std::string line;
  for (std::string_view column : kTraceCsvColumns) (line += line.empty() ? "" : ",") += column;
  return line + "\n";
}

}  // namespace pipegrid
