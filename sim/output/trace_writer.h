// A simulation's trace as the run goes (the executor's TraceSink): trace.csv, one row per action and
// transfer, and trace.json, Chrome trace events — a process per node, a compute and a communication
// track per GPU — that Perfetto opens. Rows are written as events end, so memory stays flat.
#pragma once

#include <array>
#include <cstdio>
#include <fmt/format.h>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <zlib.h>

#include "schedules/schedule.h"
#include "sim/exec/placement.h"
#include "sim/exec/trace_sink.h"
#include "sim/output/atomic_file.h"
#include "sim/output/output_files.h"
#include "sim/output/trace_options.h"

namespace pipegrid::output {

using sim::GpuCoordinates;
using sim::TraceEvent;
using sim::Track;

/// Per virtual stage, what trace.csv's last two columns say of its compute rows: its chunk and, for
/// DualPipe, its direction (schedules/stage_chunks.h).
struct StageLabels {
  std::vector<int> chunk;
  std::vector<std::string> direction;
};
StageLabels stage_labels(const Schedule& schedule);

struct TracedGpu {
  std::string host;
  int node = 0;
  int local = 0;  // index within its node
  GpuCoordinates coordinates;
};

/// The job's GPUs as the trace names them: host, node, index in the node, coordinates.
std::vector<TracedGpu> traced_gpus(const std::vector<sim::PlatformGpu>& platform_gpus, const sim::Placement& placement);

class TraceWriter final : public sim::TraceSink {
 public:
  /// Opens DIR/trace.csv and DIR/trace.json (or trace.json.gz), under their temporary names
  /// (atomic_file.h); IoError when they cannot be created.
  TraceWriter(const std::string& dir, std::vector<TracedGpu> gpus, TraceScope scope, StageLabels labels = {},
              TraceJson json = TraceJson::Auto);
  /// Without close(), the files are not written: their temporaries are removed.
  ~TraceWriter() override;
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  /// One CSV row; in the JSON one event, or two for a transfer (on both GPUs' comm tracks).
  void write(const TraceEvent& event) override;
  /// Ends both files (the JSON array needs closing) and puts them in place; called once the run is
  /// over. IoError naming the file when a write to either failed.
  void close();
  /// The files it writes: trace.csv and trace.json or trace.json.gz, or none (scope off).
  const std::vector<OutputFile>& files() const { return files_; }

 private:
  bool keeps(int gpu) const;
  void write_json(int gpu, Track track, const std::string& name, double start, double end,
                  const std::string& args = "");
  void flush_json();
  void discard();
  std::vector<TracedGpu> gpus_;
  StageLabels labels_;
  TraceScope scope_;
  std::optional<AtomicFile> csv_file_, json_out_;
  std::FILE* csv_ = nullptr;  // csv_file_'s
  // trace.json's text goes through one buffer, to the plain file or to zlib's gzip stream.
  fmt::memory_buffer json_;
  std::FILE* json_file_ = nullptr;  // json_out_'s, for the plain text
  gzFile json_gz_ = nullptr;
  bool open_ = false;
  std::vector<OutputFile> files_;
};

}  // namespace pipegrid::output
