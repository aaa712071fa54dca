#include "sim/report/trace_chart.h"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "common/input_error.h"
#include "sim/report/csv_reader.h"

namespace pipegrid::report {

namespace {

// Two intervals closer than this (seconds) touch rather than overlap: trace times are sums of floats
// (experiments/plot/trace_data.py's EPSILON).
constexpr double kEpsilon = 1e-12;

// The communication a pipeline-level chart shows: transfers between stages and the step's gradient
// collectives. TP all-reduces (four per layer and micro-batch) and MoE all-to-alls would outnumber
// every other bar and are slivers at this scale.
bool drawn_comm(const std::string& kind) {
  return kind != "tp-allreduce" && kind != "dispatch" && kind != "combine" && kind != "dispatch-grad" &&
         kind != "combine-grad";
}

int kind_order(const std::string& kind) {
  static const std::string kOrder = "FBIW";
  const std::size_t at = kOrder.find(kind.empty() ? '?' : kind[0]);
  return at == std::string::npos ? 4 : static_cast<int>(at);
}

// trace_data.assign_lanes: actions that run at once split their row; each group of overlapping
// actions gets as many lanes as it needs at its widest.
void assign_lanes(std::vector<Bar>& bars) {
  std::stable_sort(bars.begin(), bars.end(), [](const Bar& a, const Bar& b) {
    return std::tie(a.start, a.end) < std::tie(b.start, b.end) ||
           (a.start == b.start && a.end == b.end && kind_order(a.kind) < kind_order(b.kind));
  });
  std::size_t group_begin = 0;
  double group_end = -1;
  std::vector<double> lane_ends;
  const auto close_group = [&](std::size_t end) {
    for (std::size_t i = group_begin; i < end; ++i) bars[i].lanes = static_cast<int>(lane_ends.size());
  };
  for (std::size_t i = 0; i < bars.size(); ++i) {
    Bar& bar = bars[i];
    if (bar.start >= group_end - kEpsilon) {
      close_group(i);
      group_begin = i;
      lane_ends.clear();
    }
    group_end = std::max(group_end, bar.end);
    std::size_t lane = 0;
    while (lane < lane_ends.size() && lane_ends[lane] > bar.start + kEpsilon) ++lane;
    if (lane == lane_ends.size()) lane_ends.push_back(bar.end);
    else lane_ends[lane] = bar.end;
    bar.lane = static_cast<int>(lane);
  }
  close_group(bars.size());
}

struct Candidate {
  Bar bar;
  int rank;
  bool compute;
  std::size_t line;  // ties broken by file order: the same file gives the same chart
};

bool earlier(const Candidate& a, const Candidate& b) { return std::tie(a.bar.start, a.line) < std::tie(b.bar.start, b.line); }

}  // namespace

TraceChart read_trace_chart(const std::string& path, const std::string& name, std::size_t max_bars) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot be read", name));
  CsvReader csv(in, name);
  const std::size_t gpu = csv.require("gpu"), host = csv.require("host"), tp = csv.require("tp"),
                    dp = csv.require("dp"), pp = csv.require("pp"), track = csv.require("track"),
                    kind = csv.require("kind"), stage = csv.require("stage"), mb = csv.require("microbatch"),
                    start = csv.require("start"), end = csv.require("end");
  const auto chunk = csv.column("chunk"), direction = csv.column("direction");
  TraceChart chart;
  chart.chunk_column = chunk.has_value();
  chart.direction_column = direction.has_value();
  std::map<int, ChartRow> rows;
  std::map<int, long> gpu_of_rank;
  std::set<std::string> undrawn;
  std::vector<Candidate> kept;  // the earliest bars, at most 2 × max_bars between prunings
  double cut = -1;
  const auto prune = [&] {
    std::nth_element(kept.begin(), kept.begin() + static_cast<long>(max_bars), kept.end(), earlier);
    const Candidate& first_out = kept[max_bars];
    cut = cut < 0 ? first_out.bar.start : std::min(cut, first_out.bar.start);
    kept.resize(max_bars);
  };
  while (csv.next()) {
    const auto line = static_cast<std::size_t>(csv.line());
    const double b = csv.number(start), e = csv.number(end);
    if (e < b) throw InputError(fmt::format("{}: line {}: ends before it starts", name, line));
    chart.end = std::max(chart.end, e);
    const bool compute = csv.field(track) == "compute";
    if (compute) chart.compute_end = std::max(chart.compute_end, e);
    if (csv.integer(tp, 0) != 0 || csv.integer(dp, 0) != 0) continue;
    const int rank = static_cast<int>(csv.integer(pp, -1));
    if (rank < 0 || rank > 1'000'000) throw InputError(fmt::format("{}: line {}: pp: not a rank", name, line));
    const long gpu_index = csv.integer(gpu, -1);
    if (auto [at, added] = gpu_of_rank.emplace(rank, gpu_index); !added && at->second != gpu_index)
      throw InputError(fmt::format("{}: two GPUs claim tp 0, dp 0 of pipeline rank {}", name, rank));
    ChartRow& row = rows[rank];
    row.rank = rank;
    if (row.host.empty()) row.host = std::string(csv.field(host));
    Candidate c{Bar{}, rank, compute, line};
    c.bar.start = b;
    c.bar.end = e;
    c.bar.kind = std::string(csv.field(kind));
    c.bar.stage = static_cast<int>(csv.integer(stage, -1));
    c.bar.microbatch = static_cast<int>(csv.integer(mb, -1));
    if (chunk) c.bar.chunk = static_cast<int>(csv.integer(*chunk, -1));
    if (direction) c.bar.direction = std::string(csv.field(*direction));
    if (compute) row.last_compute_end = std::max(row.last_compute_end, e);
    if (!compute && !drawn_comm(c.bar.kind)) {
      undrawn.insert(c.bar.kind);
      continue;
    }
    chart.max_chunk = std::max(chart.max_chunk, c.bar.chunk);
    ++chart.bars;
    if (cut >= 0 && b >= cut) continue;
    kept.push_back(std::move(c));
    if (kept.size() >= 2 * max_bars) prune();
  }
  if (kept.size() > max_bars) prune();
  if (cut >= 0) std::erase_if(kept, [&](const Candidate& c) { return c.bar.start >= cut; });
  chart.cut = cut;
  chart.drawn = kept.size();
  std::sort(kept.begin(), kept.end(), earlier);
  for (Candidate& c : kept) (c.compute ? rows[c.rank].compute : rows[c.rank].comm).push_back(std::move(c.bar));
  for (auto& [rank, row] : rows) {
    assign_lanes(row.compute);
    chart.rows.push_back(std::move(row));
  }
  chart.undrawn_kinds.assign(undrawn.begin(), undrawn.end());
  return chart;
}

void add_missing_rows(TraceChart& chart, int ranks) {
  std::set<int> present;
  for (const ChartRow& row : chart.rows) present.insert(row.rank);
  for (int rank = 0; rank < ranks; ++rank)
    if (!present.contains(rank)) {
      ChartRow row;
      row.rank = rank;
      chart.rows.push_back(std::move(row));
    }
  std::sort(chart.rows.begin(), chart.rows.end(), [](const ChartRow& a, const ChartRow& b) { return a.rank < b.rank; });
}

}  // namespace pipegrid::report
