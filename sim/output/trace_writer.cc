#include "sim/output/trace_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fmt/format.h>
#include <iterator>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "common/csv_text.h"
#include "common/io_error.h"
#include "sim/output/output_files.h"
#include "schedules/stage_chunks.h"

namespace pipegrid::output {

namespace {

// A host name inside a JSON string of trace.json: a quote or backslash in it would end the string.
std::string json_text(const std::string& text) {
  const bool plain = std::none_of(text.begin(), text.end(), [](char c) {
    return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
  });
  if (plain) return text;
  const std::string quoted = nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return quoted.substr(1, quoted.size() - 2);
}

// Chrome trace thread ids: two per GPU, compute then communication.
int thread_id(const TracedGpu& gpu, Track track) { return 2 * gpu.local + (track == Track::Comm ? 1 : 0); }

}  // namespace

std::vector<TracedGpu> traced_gpus(const std::vector<sim::PlatformGpu>& platform_gpus, const sim::Placement& placement) {
  std::vector<TracedGpu> gpus;
  for (int g = 0; g < placement.num_gpus(); ++g) {
    const sim::PlatformGpu& platform_gpu = platform_gpus[g];
    int local = 0;
    for (int other = 0; other < g; ++other) local += platform_gpus[other].node == platform_gpu.node;
    gpus.push_back({platform_gpu.host, platform_gpu.node, local, placement.coordinates(g)});
  }
  return gpus;
}

StageLabels stage_labels(const Schedule& schedule) {
  StageLabels labels;
  labels.chunk = chunks_of_stages(schedule.layout);
  for (int stage = 0; stage < schedule.num_stages(); ++stage)
    labels.direction.emplace_back(direction_of(schedule, stage));
  return labels;
}

TraceWriter::TraceWriter(const std::string& dir, std::vector<TracedGpu> gpus, TraceScope scope, StageLabels labels,
                         TraceJson json)
    : gpus_(std::move(gpus)), labels_(std::move(labels)), scope_(scope) {
  if (scope_ == TraceScope::Auto)
    scope_ = static_cast<int>(gpus_.size()) <= kTraceAllUpTo ? TraceScope::All : TraceScope::Pipeline;
  if (scope_ == TraceScope::Off) return;
  int kept = 0;
  for (std::size_t g = 0; g < gpus_.size(); ++g) kept += keeps(static_cast<int>(g)) ? 1 : 0;
  const bool gzip = json == TraceJson::Gzip || (json == TraceJson::Auto && kept > kTraceAllUpTo);
  csv_file_.emplace(output_path(dir, OutputFile::TraceCsv));
  csv_ = csv_file_->file();
  // One of the two names, so that an earlier run's other one is not read as this run's.
  std::remove(output_path(dir, gzip ? OutputFile::TraceJson : OutputFile::TraceJsonGz).c_str());
  json_out_.emplace(output_path(dir, gzip ? OutputFile::TraceJsonGz : OutputFile::TraceJson));
  if (gzip) {
    // Level 1: deflate's fastest, still about a tenth of the text (the events repeat their keys). zlib
    // writes through a descriptor of its own onto the temporary, and closes it.
    const int fd = dup(json_out_->fd());
    json_gz_ = fd < 0 ? nullptr : gzdopen(fd, "wb1");
    if (!json_gz_) {
      if (fd >= 0) ::close(fd);
      throw IoError(fmt::format("{}: zlib cannot write it", json_out_->path()));
    }
  } else {
    json_file_ = json_out_->file();
  }
  open_ = true;
  files_ = {OutputFile::TraceCsv, gzip ? OutputFile::TraceJsonGz : OutputFile::TraceJson};
  fmt::print(csv_, "{}", csv_header(OutputFile::TraceCsv));
  fmt::format_to(std::back_inserter(json_), "{{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
  // Names first, so that Perfetto labels the tracks: one process per node, two threads per GPU.
  int last_node = -1;
  bool first = true;
  for (std::size_t g = 0; g < gpus_.size(); ++g) {
    if (!keeps(static_cast<int>(g))) continue;
    const TracedGpu& gpu = gpus_[g];
    if (gpu.node != last_node) {
      fmt::format_to(std::back_inserter(json_), "{}{{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": {}, \"args\": {{\"name\": \"node {}\"}}}}",
                 first ? "" : ",\n", gpu.node, gpu.node);
      first = false;
      last_node = gpu.node;
    }
    for (Track track : {Track::Compute, Track::Comm})
      fmt::format_to(std::back_inserter(json_),
                 ",\n{{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": {}, \"tid\": {}, \"args\": {{\"name\": \"{} {} "
                 "(tp {}, dp {}, pp {})\"}}}}",
                 gpu.node, thread_id(gpu, track), json_text(gpu.host), track == Track::Compute ? "compute" : "comm",
                 gpu.coordinates.tp, gpu.coordinates.dp, gpu.coordinates.pp);
  }
}

TraceWriter::~TraceWriter() { discard(); }

bool TraceWriter::keeps(int gpu) const {
  if (scope_ == TraceScope::Off) return false;
  if (scope_ == TraceScope::All) return true;
  const GpuCoordinates& c = gpus_[gpu].coordinates;
  return c.tp == 0 && c.dp == 0;
}

void TraceWriter::write(const TraceEvent& e) {
  const bool sender_kept = keeps(e.gpu), receiver_kept = e.peer >= 0 && keeps(e.peer);
  if (!sender_kept && !receiver_kept) return;
  const TracedGpu& gpu = gpus_[e.gpu];
  const char* track = e.track == Track::Compute ? "compute" : "comm";
  const std::string peer = e.peer >= 0 ? gpus_[e.peer].host : "";
  // A compute row's chunk and direction; none on communication rows.
  const bool labelled = e.track == Track::Compute && e.stage >= 0 && e.stage < static_cast<int>(labels_.chunk.size());
  const std::string chunk = labelled ? std::to_string(labels_.chunk[e.stage]) : "";
  const std::string_view direction = labelled ? std::string_view(labels_.direction[e.stage]) : "";
  if (sender_kept)
    fmt::print(csv_, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", e.gpu, csv_cell(gpu.host), gpu.node,
               gpu.coordinates.tp, gpu.coordinates.dp, gpu.coordinates.pp, track, csv_cell(e.kind), e.stage,
               e.microbatch, csv_cell(peer), e.bytes, e.start, e.end, chunk, csv_cell(direction));
  if (e.peer < 0) {
    // Actions read as in the schedule notation (3F2); phases and collectives by kind, with the action.
    std::string name(e.kind);
    if (e.stage >= 0)
      name = e.kind.size() == 1 ? fmt::format("{}{}{}", e.stage, e.kind, e.microbatch)
                                : fmt::format("{} (stage {}, micro-batch {})", e.kind, e.stage, e.microbatch);
    write_json(e.gpu, e.track, name, e.start, e.end,
               labelled ? fmt::format(", \"args\": {{\"chunk\": {}, \"direction\": \"{}\"}}", chunk, direction) : "");
    return;
  }
  const std::string result = fmt::format("{}{}{}", e.stage, e.action, e.microbatch);
  if (sender_kept)
    write_json(e.gpu, Track::Comm, fmt::format("send {} to {}", result, json_text(peer)), e.start, e.end);
  if (receiver_kept)
    write_json(e.peer, Track::Comm, fmt::format("recv {} from {}", result, json_text(gpu.host)), e.start, e.end);
}

void TraceWriter::write_json(int gpu_index, Track track, const std::string& name, double start, double end,
                             const std::string& args) {
  const TracedGpu& gpu = gpus_[gpu_index];
  fmt::format_to(std::back_inserter(json_), ",\n{{\"ph\": \"X\", \"name\": \"{}\", \"cat\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": {}, \"dur\": {}{}}}",
             name, track == Track::Compute ? "compute" : "comm", gpu.node, thread_id(gpu, track), start * 1e6,
             (end - start) * 1e6, args);
  if (json_.size() > (std::size_t{1} << 20)) flush_json();
}

void TraceWriter::flush_json() {
  if (json_gz_) {
    // A failure is kept for close(), as the files' own are: this runs inside SimGrid's actors.
    errno = 0;
    if (json_.size() > 0 && gzwrite(json_gz_, json_.data(), static_cast<unsigned>(json_.size())) == 0)
      json_out_->fail(errno != 0 ? errno : EIO);
  } else if (json_file_) {
    std::fwrite(json_.data(), 1, json_.size(), json_file_);
  }
  json_.clear();
}

void TraceWriter::close() {
  if (!open_) return;
  open_ = false;
  fmt::format_to(std::back_inserter(json_), "\n]}}\n");
  flush_json();
  errno = 0;
  if (json_gz_ && gzclose(json_gz_) != Z_OK) json_out_->fail(errno != 0 ? errno : EIO);
  json_gz_ = nullptr;
  csv_ = json_file_ = nullptr;
  csv_file_->commit();
  json_out_->commit();
}

void TraceWriter::discard() {
  if (json_gz_) gzclose(json_gz_);
  json_gz_ = nullptr;
  csv_ = json_file_ = nullptr;
  open_ = false;
  csv_file_.reset();
  json_out_.reset();
}

}  // namespace pipegrid::output
