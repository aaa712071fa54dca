#include "sim/run/limits.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <unistd.h>

#include "common/input_error.h"

namespace pipegrid::run {

namespace {

// A cgroup's memory limit in bytes (v2's memory.max, v1's memory.limit_in_bytes), or infinity.
double cgroup_limit() {
  double limit = INFINITY;
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    double value = 0;
    if (in >> value && value > 0) limit = std::min(limit, value);  // "max" reads as no number: no limit
  }
  return limit;
}

}  // namespace

double memory_limit_bytes() {
  const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  return std::min(physical > 0 ? physical : INFINITY, cgroup_limit());
}

double action_limit() { return std::min(std::floor(memory_limit_bytes() / kBytesPerAction), kMaxActions); }

double estimated_actions(std::string_view schedule, const ScheduleParams& params) {
  const GeneratorInfo* generator = find_generator(schedule);
  if (!generator) return 0;
  const double chunks = params.chunks > 0 ? params.chunks : generator->default_chunks;
  return static_cast<double>(params.ranks) * chunks * static_cast<double>(params.microbatches) *
         generator->kinds_per_microbatch;
}

void check_schedule_size(std::string_view schedule, const ScheduleParams& params) {
  const double actions = estimated_actions(schedule, params), limit = action_limit();
  if (actions <= limit) return;
  std::string flags = fmt::format("--pp {} --microbatches {}", params.ranks, params.microbatches);
  if (params.chunks > 0) flags += fmt::format(" --chunks {}", params.chunks);
  throw InputError(fmt::format("{}: {:.2g} actions need ~{}; the limit on this machine is {:.2g} actions (~{})", flags,
                               actions, human_bytes(actions * kBytesPerAction), limit,
                               human_bytes(limit * kBytesPerAction)));
}

void check_gpu_count(int tp, int pp, int dp, int gpus) {
  const double limit = std::floor(memory_limit_bytes() / kBytesPerGpu);
  if (gpus <= limit) return;
  throw InputError(fmt::format("--tp {} --pp {} --dp {}: {} GPUs need ~{} to simulate; the limit on this machine is {:.0f} "
                               "GPUs (~{})",
                               tp, pp, dp, gpus, human_bytes(gpus * kBytesPerGpu), limit, human_bytes(limit * kBytesPerGpu)));
}

std::string human_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
  int unit = 0;
  while (bytes >= 999.5 && unit < 8) {
    bytes /= 1000;
    ++unit;
  }
  return bytes < 9.95 ? fmt::format("{:.1f} {}", bytes, kUnits[unit]) : fmt::format("{:.0f} {}", bytes, kUnits[unit]);
}

}  // namespace pipegrid::run
