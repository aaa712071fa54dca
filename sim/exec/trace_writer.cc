#include "sim/exec/trace_writer.h"

#include <fmt/format.h>

#include "common/input_error.h"
#include "common/trace_columns.h"
#include "schedules/stage_chunks.h"

namespace pipegrid::sim {

namespace {

std::FILE* open_for_writing(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (!file) throw InputError(fmt::format("--out: cannot write {}", path));
  return file;
}

// Chrome trace thread ids: two per GPU, compute then communication.
int thread_id(const TracedGpu& gpu, Track track) { return 2 * gpu.local + (track == Track::Comm ? 1 : 0); }

}  // namespace

StageLabels stage_labels(const Schedule& schedule) {
  StageLabels labels;
  labels.chunk = chunks_of_stages(schedule.layout);
  for (int stage = 0; stage < schedule.num_stages(); ++stage)
    labels.direction.emplace_back(direction_of(schedule, stage));
  return labels;
}

TraceWriter::TraceWriter(const std::string& dir, std::vector<TracedGpu> gpus, TraceScope scope, StageLabels labels)
    : gpus_(std::move(gpus)), labels_(std::move(labels)), scope_(scope) {
  if (scope_ == TraceScope::Off) return;
  csv_ = open_for_writing(dir + "/trace.csv");
  json_ = open_for_writing(dir + "/trace.json");
  fmt::print(csv_, "{}", trace_csv_header());
  fmt::print(json_, "{{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
  // Names first, so that Perfetto labels the tracks: one process per node, two threads per GPU.
  int last_node = -1;
  bool first = true;
  for (std::size_t g = 0; g < gpus_.size(); ++g) {
    if (!keeps(static_cast<int>(g))) continue;
    const TracedGpu& gpu = gpus_[g];
    if (gpu.node != last_node) {
      fmt::print(json_, "{}{{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": {}, \"args\": {{\"name\": \"node {}\"}}}}",
                 first ? "" : ",\n", gpu.node, gpu.node);
      first = false;
      last_node = gpu.node;
    }
    for (Track track : {Track::Compute, Track::Comm})
      fmt::print(json_,
                 ",\n{{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": {}, \"tid\": {}, \"args\": {{\"name\": \"{} {} "
                 "(tp {}, dp {}, pp {})\"}}}}",
                 gpu.node, thread_id(gpu, track), gpu.host, track == Track::Compute ? "compute" : "comm",
                 gpu.coordinates.tp, gpu.coordinates.dp, gpu.coordinates.pp);
  }
}

TraceWriter::~TraceWriter() { close(); }

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
    fmt::print(csv_, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", e.gpu, gpu.host, gpu.node, gpu.coordinates.tp,
               gpu.coordinates.dp, gpu.coordinates.pp, track, e.kind, e.stage, e.microbatch, peer, e.bytes, e.start,
               e.end, chunk, direction);
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
  if (sender_kept) write_json(e.gpu, Track::Comm, fmt::format("send {} to {}", result, peer), e.start, e.end);
  if (receiver_kept) write_json(e.peer, Track::Comm, fmt::format("recv {} from {}", result, gpu.host), e.start, e.end);
}

void TraceWriter::write_json(int gpu_index, Track track, const std::string& name, double start, double end,
                             const std::string& args) {
  const TracedGpu& gpu = gpus_[gpu_index];
  fmt::print(json_, ",\n{{\"ph\": \"X\", \"name\": \"{}\", \"cat\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": {}, \"dur\": {}{}}}",
             name, track == Track::Compute ? "compute" : "comm", gpu.node, thread_id(gpu, track), start * 1e6,
             (end - start) * 1e6, args);
}

void TraceWriter::close() {
  if (csv_) std::fclose(csv_);
  if (json_) {
    fmt::print(json_, "\n]}}\n");
    std::fclose(json_);
  }
  csv_ = json_ = nullptr;
}

}  // namespace pipegrid::sim
