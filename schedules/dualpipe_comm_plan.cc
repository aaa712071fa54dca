// DeepSeek's DualPipe and DualPipeV lowered as their step() posts its p2p (deepseek-ai/DualPipe at
// 3da1bbe, dualpipe/dualpipe.py and dualpipev.py): step() is walked for each rank
// (dualpipe_trace.h), the program must run what the walk runs, op for op, and the comm batches are
// the walk's — one batch_isend_irecv of everything pending before each compute and at the end of
// step(), waited at once (_commit_and_wait_comm, dualpipe.py 285-292).
#include <algorithm>
#include <fmt/format.h>
#include <string>
#include <string_view>
#include <vector>

#include "common/input_error.h"
#include "schedules/dualpipe_trace.h"
#include "schedules/framework_plans.h"
#include "schedules/validate.h"

namespace pipegrid {

namespace {

constexpr std::string_view kOwnOrderOnly = "the dualpipe plan lowers only DualPipe's own order";

bool same_layout(const StageLayout& a, const StageLayout& b) {
  return a.rank_of_stage == b.rank_of_stage && a.next == b.next && a.prev == b.prev &&
         a.first_microbatch == b.first_microbatch && a.end_microbatch == b.end_microbatch;
}

// The class whose placement the schedule has, once its step() would accept (p, m): DualPipe's two
// directions (dualpipe.py 332-333 assert an even p, an even m and m ≥ 2p) or DualPipeV's V
// (dualpipev.py 318 asserts m ≥ 2p).
DualPipeVariant variant_of(const Schedule& s) {
  const int p = s.ranks, m = s.microbatches;
  const bool placed = p >= 1 && static_cast<int>(s.programs.size()) == p;
  if (placed && p % 2 == 0 && same_layout(s.layout, StageLayout::two_directions(p, m))) {
    if (m % 2 != 0 || m < 2 * p)
      throw InputError(fmt::format(
          "--comm-plan dualpipe: DualPipe's step() needs an even number of micro-batches, at least 2 × {} = {}, not {}",
          p, 2 * p, m));
    return DualPipeVariant::DualPipe;
  }
  if (placed && same_layout(s.layout, StageLayout::chain(v_placement(p), m))) {
    if (m < 2 * p)
      throw InputError(fmt::format(
          "--comm-plan dualpipe: DualPipeV's step() needs at least 2 × {} = {} micro-batches, not {}", p, 2 * p, m));
    return DualPipeVariant::DualPipeV;
  }
  throw InputError(
      fmt::format("--comm-plan dualpipe: schedule {} does not place its stages as DualPipe (two "
                  "directions) or DualPipeV (a V) does: {}",
                  s.name, kOwnOrderOnly));
}

}  // namespace

void lower_dualpipe(Schedule& s) {
  const DualPipeVariant variant = variant_of(s);
  const std::string_view step = variant == DualPipeVariant::DualPipe ? "DualPipe's step()" : "DualPipeV's step()";
  std::vector<std::vector<CommBatch>> comms(s.ranks);
  for (int rank = 0; rank < s.ranks; ++rank) {
    DualPipeStep trace = trace_dualpipe_step(variant, s.layout, s.ranks, rank);
    const std::vector<Op>& program = s.programs[rank];
    for (std::size_t pos = 0; pos < std::max(program.size(), trace.ops.size()); ++pos) {
      if (pos < program.size() && pos < trace.ops.size() && program[pos] == trace.ops[pos]) continue;
      const std::string ours =
          pos < program.size() ? "runs " + to_string(program[pos]) : "is past the end of its program";
      const std::string theirs = pos < trace.ops.size() ? "runs " + to_string(trace.ops[pos]) : "has ended";
      throw InputError(fmt::format("--comm-plan dualpipe: {} {}, but {} {} there: {}", locate_in_program(rank, pos),
                                   ours, step, theirs, kOwnOrderOnly));
    }
    comms[rank] = std::move(trace.batches);
  }
  s.comms = std::move(comms);
}

}  // namespace pipegrid
