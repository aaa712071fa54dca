// The run's trace as it happens: trace.csv (one row per action and transfer) and trace.json (Chrome
// trace events: one process per node, a compute and a communication track per GPU; opens in Perfetto).
// Rows are written as events end, so memory stays flat however long the run.
#pragma once

#include <array>
#include <cstdio>
#include <fmt/format.h>
#include <string>
#include <string_view>
#include <vector>
#include <zlib.h>

#include "schedules/schedule.h"
#include "sim/exec/placement.h"

namespace pipegrid::sim {

enum class Track { Compute, Comm };

/// One interval of a GPU's timeline: a computation, a transfer (on the sender's row, the receiver as
/// peer) or its part of a collective.
struct TraceEvent {
  int gpu = 0;
  Track track = Track::Compute;
  std::string_view kind;  // F, B, I, W, an overlapped pair's halves, p2p, tp-allreduce, dp-allreduce, …
  int stage = -1;         // the action's stage, or the transferred result's
  int microbatch = -1;
  char action = 0;        // for p2p: the action that produced the result (F, B or I)
  int peer = -1;          // for p2p: the receiving GPU
  double bytes = 0;
  double start = 0;
  double end = 0;
};

/// Per virtual stage, what trace.csv's last two columns say of its compute rows: its chunk and, for
/// DualPipe, its direction (schedules/stage_chunks.h).
struct StageLabels {
  std::vector<int> chunk;
  std::vector<std::string> direction;
};
StageLabels stage_labels(const Schedule& schedule);

/// Which GPUs a trace keeps: all, or one per pipeline rank (TP rank 0 of DP replica 0) — the
/// pipeline picture at a size Perfetto opens — or none. Auto (the default): all in a job of at most
/// kTraceAllUpTo GPUs, one per pipeline rank above (at 3072 GPUs every GPU was 2.5 GB of trace).
enum class TraceScope { Auto, All, Pipeline, Off };
constexpr int kTraceAllUpTo = 256;

/// How trace.json is written: plain, or gzip-compressed as trace.json.gz (Perfetto opens both). Auto
/// (the default): gzip when the trace keeps more than kTraceAllUpTo GPUs.
enum class TraceJson { Auto, Gzip, Plain };

struct TracedGpu {
  std::string host;
  int node = 0;
  int local = 0;  // index within its node
  GpuCoordinates coordinates;
};

class TraceWriter {
 public:
  /// Opens DIR/trace.csv and DIR/trace.json (or trace.json.gz); throws InputError when they cannot be
  /// created.
  TraceWriter(const std::string& dir, std::vector<TracedGpu> gpus, TraceScope scope, StageLabels labels = {},
              TraceJson json = TraceJson::Auto);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  /// One CSV row; in the JSON one event, or two for a transfer (on both GPUs' comm tracks).
  void write(const TraceEvent& event);
  /// Ends both files (the JSON array needs closing); called once the run is over.
  void close();

 private:
  bool keeps(int gpu) const;
  void write_json(int gpu, Track track, const std::string& name, double start, double end,
                  const std::string& args = "");
  void flush_json();
  std::vector<TracedGpu> gpus_;
  StageLabels labels_;
  TraceScope scope_;
  std::FILE* csv_ = nullptr;
  // trace.json's text goes through one buffer, to the plain file or to zlib's gzip stream.
  fmt::memory_buffer json_;
  std::FILE* json_file_ = nullptr;
  gzFile json_gz_ = nullptr;
  bool open_ = false;
};

}  // namespace pipegrid::sim
