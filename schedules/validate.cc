#include "schedules/validate.h"

#include <cstdint>
#include <fmt/format.h>

#include "common/input_error.h"

namespace pipegrid {

namespace {

void validate_layout(const Schedule& schedule) {
  const StageLayout& layout = schedule.layout;
  const int stages = layout.num_stages();
  if (schedule.ranks < 1) throw InputError(fmt::format("schedule {}: needs at least one rank", schedule.name));
  if (layout.model_stage.size() != layout.rank_of_stage.size() || layout.next.size() != layout.rank_of_stage.size() ||
      layout.prev.size() != layout.rank_of_stage.size())
    throw InputError(fmt::format("schedule {}: the stage layout's tables differ in length", schedule.name));
  if (static_cast<int>(schedule.programs.size()) != schedule.ranks)
    throw InputError(fmt::format("schedule {}: {} programs for {} ranks", schedule.name, schedule.programs.size(),
                                 schedule.ranks));
  for (int s = 0; s < stages; ++s) {
    const int rank = layout.rank_of_stage[s];
    if (rank < 0 || rank >= schedule.ranks)
      throw InputError(fmt::format("stage {}: placed on rank {}, outside 0-{}", s, rank, schedule.ranks - 1));
    for (int neighbour : {layout.next[s], layout.prev[s]})
      if (neighbour < -1 || neighbour >= stages)
        throw InputError(fmt::format("stage {}: linked to unknown stage {}", s, neighbour));
    if (layout.model_stage[s] < 0 || layout.model_stage[s] >= stages)
      throw InputError(fmt::format("stage {}: computes unknown model stage {}", s, layout.model_stage[s]));
    if (layout.next[s] >= 0 && layout.prev[layout.next[s]] != s)
      throw InputError(fmt::format("stage {}: its next stage {} does not lead back to it", s, layout.next[s]));
  }
}

// Which parts of (stage, micro-batch) a walk over the programs has seen.
enum Seen : std::uint8_t { kF = 1, kB = 2, kI = 4, kW = 8 };
std::uint8_t seen_bit(Kind kind) {
  switch (kind) {
    case Kind::F: return kF;
    case Kind::B: return kB;
    case Kind::I: return kI;
    case Kind::W: return kW;
  }
  return 0;
}

void check_action(const Schedule& schedule, const OpLocator& locate, int rank, std::size_t position, const Action& a) {
  const StageLayout& layout = schedule.layout;
  if (a.stage >= layout.num_stages())
    throw InputError(fmt::format("{}: {} names stage {}, but the schedule has stages 0-{}", locate(rank, position),
                                 to_string(a), a.stage, layout.num_stages() - 1));
  if (!layout.has_microbatch(a.stage, a.microbatch))
    throw InputError(fmt::format("{}: {} names micro-batch {}, but stage {} runs micro-batches {}-{}",
                                 locate(rank, position), to_string(a), a.microbatch, a.stage,
                                 layout.first_microbatch[a.stage], layout.end_microbatch[a.stage] - 1));
  if (layout.rank_of_stage[a.stage] != rank)
    throw InputError(fmt::format("{}: {} runs on rank {}, but stage {} is on rank {}", locate(rank, position),
                                 to_string(a), rank, a.stage, layout.rank_of_stage[a.stage]));
}

void check_pair(const OpLocator& locate, int rank, std::size_t position, const Op& op) {
  const Kind a = op.first.kind, b = op.second->kind;
  const bool forward_and_backward =
      (a == Kind::F && (b == Kind::B || b == Kind::I)) || (b == Kind::F && (a == Kind::B || a == Kind::I));
  if (!forward_and_backward)
    throw InputError(fmt::format("{}: {} pairs {} with {}; an overlapped pair joins a forward with a backward (B or I)",
                                 locate(rank, position), to_string(op), kind_letter(a), kind_letter(b)));
}

// The first stage and micro-batch, in stage order, that misses an action (the message validate()
// throws), or "" when every one runs all of its own. Expects the programs to keep validate_ops().
std::string first_missing(const Schedule& schedule) {
  const StageLayout& layout = schedule.layout;
  const std::size_t m = static_cast<std::size_t>(schedule.microbatches);
  std::vector<std::uint8_t> seen(layout.num_stages() * m, 0);
  for (const auto& program : schedule.programs)
    for (const Op& op : program)
      for (int i = 0; i < op.size(); ++i) seen[op[i].stage * m + op[i].microbatch] |= seen_bit(op[i].kind);
  for (int s = 0; s < layout.num_stages(); ++s) {
    for (int mb = layout.first_microbatch[s]; mb < layout.end_microbatch[s]; ++mb) {
      const std::uint8_t have = seen[s * m + mb];
      const auto missing = [&](std::string_view what) {
        return fmt::format("stage {}, micro-batch {}: no {} on rank {}", s, mb, what, layout.rank_of_stage[s]);
      };
      if (!(have & kF)) return missing("forward (F)");
      if (!(have & (kB | kI))) return missing("backward (B, or I and W)");
      if ((have & kI) && !(have & kW)) return missing("weight gradient (W) after its I");
    }
  }
  return "";
}

}  // namespace

std::string locate_in_program(int rank, std::size_t position) {
  return fmt::format("rank {}, position {}", rank, position + 1);
}

void validate(const Schedule& schedule, const OpLocator& locate) {
  validate_ops(schedule, locate);
  validate_complete(schedule);
}

void validate_ops(const Schedule& schedule, const OpLocator& locate) {
  validate_layout(schedule);
  const StageLayout& layout = schedule.layout;
  const std::size_t m = static_cast<std::size_t>(schedule.microbatches);
  for (int s = 0; s < layout.num_stages(); ++s)
    if (layout.first_microbatch[s] < 0 || layout.end_microbatch[s] > schedule.microbatches)
      throw InputError(fmt::format("stage {}: micro-batches outside 0-{}", s, schedule.microbatches - 1));
  std::vector<std::uint8_t> seen(layout.num_stages() * m, 0);

  for (int rank = 0; rank < schedule.ranks; ++rank) {
    const auto& program = schedule.programs[rank];
    for (std::size_t pos = 0; pos < program.size(); ++pos) {
      const Op& op = program[pos];
      if (op.is_pair()) check_pair(locate, rank, pos, op);
      for (int i = 0; i < op.size(); ++i) check_action(schedule, locate, rank, pos, op[i]);
      // Check order against what ran before this op: the halves of a pair run together, so a pair's
      // forward does not count as done before its own backward.
      for (int i = 0; i < op.size(); ++i) {
        const Action& a = op[i];
        const std::uint8_t have = seen[a.stage * m + a.microbatch];
        const std::string forward = to_string(Action{a.stage, a.microbatch, Kind::F});
        if (have & seen_bit(a.kind))
          throw InputError(fmt::format("{}: {} runs a second time", locate(rank, pos), to_string(a)));
        if (is_backward(a.kind) && !(have & kF))
          throw InputError(fmt::format("{}: {} runs before its forward {}", locate(rank, pos), to_string(a), forward));
        if ((a.kind == Kind::B && (have & (kI | kW))) || (a.kind != Kind::B && a.kind != Kind::F && (have & kB)))
          throw InputError(fmt::format("{}: {} mixes a full backward B with a split one (I and W)", locate(rank, pos),
                                       to_string(a)));
        if (a.kind == Kind::W && !(have & kI))
          throw InputError(fmt::format("{}: {} runs before its input gradient {}", locate(rank, pos), to_string(a),
                                       to_string(Action{a.stage, a.microbatch, Kind::I})));
      }
      for (int i = 0; i < op.size(); ++i) seen[op[i].stage * m + op[i].microbatch] |= seen_bit(op[i].kind);
    }
  }
}

void validate_complete(const Schedule& schedule) {
  if (const std::string missing = first_missing(schedule); !missing.empty()) throw InputError(missing);
}

bool is_complete(const Schedule& schedule) { return first_missing(schedule).empty(); }

}  // namespace pipegrid
