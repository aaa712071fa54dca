// What the HTML report's Gantt chart draws of a trace.csv: one row per pipeline rank (the GPU with
// tp 0 and dp 0, as `--trace pipeline` keeps it and gantt.py's `--rows pipeline` draws it; the static
// engines' traces have only such rows), its computations and its pipeline-level communication.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pipegrid::report {

/// At most this many bars (computations and transfers) are drawn, so that the page stays small
/// (about 100 bytes a bar): a longer trace is drawn up to the time its first bar past the cap starts.
inline constexpr std::size_t kMaxBars = 4000;

struct Bar {
  double start = 0;
  double end = 0;
  std::string kind;       // F, B, I, W, F-experts, optimizer, …; p2p, dp-allreduce, …
  int stage = -1;
  int microbatch = -1;    // -1: none (the optimizer, a collective)
  int chunk = -1;         // trace.csv's chunk column; -1 when absent or empty
  std::string direction;  // "down", "up" (DualPipe) or ""
  int lane = 0;           // overlapping computations (an overlapped F&B pair) share the row in lanes
  int lanes = 1;
};

struct ChartRow {
  int rank = 0;  // pipeline rank (pp)
  std::string host;
  std::vector<Bar> compute;  // sorted by start, with lanes
  std::vector<Bar> comm;
  double last_compute_end = 0;  // over the whole trace, drawn or not
};

struct TraceChart {
  std::vector<ChartRow> rows;  // by rank
  bool chunk_column = false;
  bool direction_column = false;
  int max_chunk = 0;
  double end = 0;          // the last end of any row of the trace (the step's end)
  double compute_end = 0;  // the last computation's end
  std::size_t bars = 0;    // bars of the drawn rows in the trace
  std::size_t drawn = 0;   // bars drawn (bars, unless capped)
  double cut = -1;         // when capped: bars starting before it are drawn; else -1
  std::vector<std::string> undrawn_kinds;  // comm kinds present but not drawn (TP all-reduces, all-to-alls)
};

/// Reads `path` (named `name` in errors). Columns by header: gpu,host,tp,dp,pp,track,kind,stage,
/// microbatch,start,end required; chunk, direction optional. InputError on a malformed file.
TraceChart read_trace_chart(const std::string& path, const std::string& name, std::size_t max_bars = kMaxBars);

/// Adds an empty row for each rank below `ranks` the trace has no row for (a rank that never computed).
void add_missing_rows(TraceChart& chart, int ranks);

}  // namespace pipegrid::report
