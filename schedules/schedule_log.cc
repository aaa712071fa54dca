#include "schedules/schedule_log.h"

#include <sstream>
#include <string>
#include <fmt/format.h>

#include "common/log.h"
#include "schedules/schedule_csv.h"

namespace pipegrid {

void log_lowered(const Schedule& lowered, std::string_view plan) {
  spdlog::logger& logger = log::schedules();
  if (!logger.should_log(spdlog::level::debug)) return;
  std::size_t batches = 0, actions = 0;
  for (const auto& rank : lowered.comms) {
    batches += rank.size();
    for (const CommBatch& batch : rank) actions += batch.actions.size();
  }
  logger.debug("schedule {}: {} ranks, {} compute ops, {} comm actions in {} batches ({})", lowered.name, lowered.ranks,
               lowered.num_ops(), actions, batches,
               plan.empty() ? std::string("as its file wrote them") : fmt::format("lowered by the {} plan", plan));
  if (!logger.should_log(spdlog::level::trace)) return;
  std::ostringstream csv;
  write_schedule_csv(csv, lowered);
  std::istringstream lines(csv.str());
  int rank = 0;
  for (std::string line; std::getline(lines, line); ++rank) logger.trace("rank {}: {}", rank, line);
}

void log_checked(const Schedule& schedule, const Deadlock* deadlock) {
  spdlog::logger& logger = log::schedules();
  if (!logger.should_log(spdlog::level::debug)) return;
  logger.debug("schedule {}: {} ranks, {} micro-batches, {} chunk{}, {} compute ops; checked: {}", schedule.name,
               schedule.ranks, schedule.microbatches, schedule.chunks, schedule.chunks == 1 ? "" : "s",
               schedule.num_ops(), deadlock ? "deadlock: " + deadlock->chain() : std::string("no deadlock"));
}

}  // namespace pipegrid
