// The schedule generators by name: pure functions from (p, m, v) to a Schedule, each in its own file.
#pragma once

#include <span>
#include <string_view>

#include "schedules/schedule.h"

namespace pipegrid {

struct ScheduleParams {
  int ranks = 0;         // p
  int microbatches = 0;  // m
  int chunks = 0;        // v; 0 asks for the schedule's default
};

/// A generator and the facts a caller needs before calling it.
struct GeneratorInfo {
  std::string_view name;
  std::string_view description;
  int default_chunks;     // chunks per rank when the caller gives none
  bool chunks_are_fixed;  // true when the schedule allows only default_chunks
  int kinds_per_microbatch;  // actions per micro-batch and virtual stage: 2 (F, B) or 3 (F, I, W)
  /// Checks the schedule's own constraints (throws InputError naming the rule) and builds it.
  Schedule (*generate)(const ScheduleParams&);
};

/// Every generator, in the order tables list them.
std::span<const GeneratorInfo> schedule_generators();
/// nullptr for an unknown name.
const GeneratorInfo* find_generator(std::string_view name);
/// Checks the common rules (p ≥ 1, m ≥ 1, a known name, a valid v) and generates.
Schedule generate_schedule(std::string_view name, ScheduleParams params);

// One per file.
Schedule generate_gpipe(const ScheduleParams& params);
Schedule generate_1f1b(const ScheduleParams& params);
Schedule generate_interleaved(const ScheduleParams& params);
Schedule generate_zb_h1(const ScheduleParams& params);
Schedule generate_zb_h2(const ScheduleParams& params);
Schedule generate_zbv(const ScheduleParams& params);
Schedule generate_dualpipe(const ScheduleParams& params);
Schedule generate_dualpipev(const ScheduleParams& params);

/// Warmup forwards of rank r in 1F1B: min(p − r − 1, m).
int warmup_forwards_1f1b(int ranks, int rank, int microbatches);
/// Warmup forwards of rank r in Megatron's interleaved 1F1B: 2(p − r − 1) + (v − 1)p, capped at m·v,
/// and all m·v when m == p (Megatron runs every forward first then).
int warmup_forwards_interleaved(int ranks, int rank, int microbatches, int chunks);

}  // namespace pipegrid
