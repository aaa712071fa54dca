// How large a job this machine can hold, estimated before anything is built: a schedule's actions,
// a sweep's configurations. What exceeds the estimate is refused with it, instead of growing until the
// kernel kills the process.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "schedules/generators.h"

namespace pipegrid::run {

/// The memory this process may use: the machine's physical memory, or its cgroup's limit when lower.
double memory_limit_bytes();

/// Bytes one action costs at its peak (generated, validated, its dependency graph built, timed):
/// measured, and rounded up; the measurement is in docs/performance.md.
inline constexpr double kBytesPerAction = 80;
/// Whatever the memory, pipegrid's generators index actions with 32-bit integers; 2^28 leaves the
/// headroom their arithmetic (2p + vp, m·v, …) needs.
inline constexpr double kMaxActions = 1 << 28;

/// The most actions a schedule may have here: the smaller of memory / kBytesPerAction and kMaxActions.
double action_limit();

/// The actions a generated schedule would have: p × v × m × (2, or 3 where B is split into I and W).
/// Counted in doubles, so that no product overflows. 0 for an unknown schedule (the generator names it).
double estimated_actions(std::string_view schedule, const ScheduleParams& params);

/// Refuses a schedule too large for this machine before generating it: InputError
/// "--pp 4000000 --microbatches 4000000: 3.2e+13 actions need ~2.6 PB; the limit on this machine is …".
void check_schedule_size(std::string_view schedule, const ScheduleParams& params);

/// Bytes one simulated GPU costs the executor (its actor, its stack's touched pages, its routes and
/// accounts): measured on `make bench`'s 3072-GPU run (docs/performance.md), and four times that.
inline constexpr double kBytesPerGpu = 256e3;

/// Refuses a job with more GPUs than this machine can simulate: InputError "--tp T --pp P --dp D: …".
void check_gpu_count(int tp, int pp, int dp, int gpus);

/// "2.6 PB", "21 GB", "512 kB": decimal units, one decimal below 10.
std::string human_bytes(double bytes);

}  // namespace pipegrid::run
