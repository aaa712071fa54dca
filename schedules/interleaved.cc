// Interleaved 1F1B in Megatron-LM's order (Narayanan et al. 2021, §2.2; megatron/core/pipeline_parallel/
// schedules.py). Rank r holds stages r, r + p, …, r + (v − 1)p; its forward k is chunk (k / p) mod v of
// micro-batch (k / pv)·p + k mod p, its backwards the same with the chunks reversed.
// docs/schedules.md, "Interleaved 1F1B".
#include <algorithm>
#include <fmt/format.h>

#include "schedules/generators.h"
#include "common/input_error.h"

namespace pipegrid {

int warmup_forwards_interleaved(int ranks, int rank, int microbatches, int chunks) {
  const int total = microbatches * chunks;
  if (microbatches == ranks) return total;
  return std::min(2 * (ranks - rank - 1) + (chunks - 1) * ranks, total);
}

namespace {

// The k-th forward (or backward, with the chunk order reversed) of a rank, in Megatron's numbering.
Action virtual_microbatch(int p, int v, int rank, int k, Kind kind) {
  const int group = k / p % v;
  const int chunk = kind == Kind::F ? group : v - 1 - group;
  const int microbatch = k / (p * v) * p + k % p;
  return Action{chunk * p + rank, microbatch, kind};
}

}  // namespace

Schedule generate_interleaved(const ScheduleParams& params) {
  const int p = params.ranks, m = params.microbatches, v = params.chunks;
  // Megatron (up to 2024) groups micro-batches p at a time per chunk; a partial group would leave
  // ranks waiting for a chunk switch that never comes in step.
  if (m < p)
    throw InputError(fmt::format("--microbatches {}: interleaved needs at least --pp ({}) micro-batches", m, p));
  if (m % p != 0)
    throw InputError(fmt::format(
        "--microbatches {}: interleaved (Megatron's order) needs a multiple of --pp ({}); {} % {} = {}", m, p, m, p,
        m % p));
  Schedule schedule{"interleaved", p, m, v, StageLayout::chain(loop_placement(p, v), m), {}, {}};
  schedule.programs.resize(p);
  const int total = m * v;
  for (int r = 0; r < p; ++r) {
    auto& program = schedule.programs[r];
    program.reserve(2 * static_cast<std::size_t>(total));
    const int warmup = warmup_forwards_interleaved(p, r, m, v);
    for (int k = 0; k < warmup; ++k) program.emplace_back(virtual_microbatch(p, v, r, k, Kind::F));
    for (int k = 0; k < total - warmup; ++k) {
      program.emplace_back(virtual_microbatch(p, v, r, k + warmup, Kind::F));
      program.emplace_back(virtual_microbatch(p, v, r, k, Kind::B));
    }
    for (int k = total - warmup; k < total; ++k) program.emplace_back(virtual_microbatch(p, v, r, k, Kind::B));
  }
  return schedule;
}

}  // namespace pipegrid
