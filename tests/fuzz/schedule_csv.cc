// Fuzzes the schedule CSV reader (schedules/schedule_csv.h) and what `pipegrid check` does with a read
// that succeeds, under each of the three placements: validate, then, for a valid schedule, the
// deadlock checker and the contention-free engine with the default op times. InputError is the
// expected rejection; any other exception, a crash, undefined behaviour, a leak or a hang is a bug.
// Also checked: what was read is written back (write_schedule_csv) and reads as the same programs and
// comm actions, and the checker and the engine agree on whether the schedule deadlocks. Then its comm
// actions (its own, or PyTorch's lowering of a compute-only file): validate_comms, and the comm engine
// under both p2p semantics — async on the torch lowering times exactly as the compute-only engine; any
// deadlock has a cycle and a report. A schedule that misses ops but keeps the other rules is run to
// where it hangs (check_incomplete).
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "common/input_error.h"
#include "fuzz_support.h"
#include "schedules/comm_check.h"
#include "schedules/comm_plan.h"
#include "schedules/comm_timing.h"
#include "schedules/deadlock.h"
#include "schedules/schedule_csv.h"
#include "schedules/timing.h"
#include "schedules/validate.h"

using namespace pipegrid;

namespace {

void check_round_trip(const CsvSchedule& csv, CsvPlacement placement) {
  std::ostringstream out;
  write_schedule_csv(out, csv.schedule);
  std::istringstream in(out.str());
  CsvSchedule again;
  try {
    again = read_schedule_csv(in, "written.csv", placement);
  } catch (const InputError& e) {
    fuzz::fail(std::string("write_schedule_csv's output is refused: ") + e.what() + "\n" + out.str());
  }
  fuzz::check(again.schedule.programs == csv.schedule.programs, "written and read back, the programs differ");
  fuzz::check(again.schedule.comms == csv.schedule.comms, "written and read back, the comm actions differ");
  fuzz::check(again.schedule.ranks == csv.schedule.ranks && again.schedule.microbatches == csv.schedule.microbatches &&
                  again.schedule.layout.rank_of_stage == csv.schedule.layout.rank_of_stage,
              "written and read back, the layout differs");
}

// A schedule that keeps every rule but misses ops (what `check` reports as a hang where another rank
// waits for a missing op): the checker and, for a file with comm actions, the comm engine run it to
// where it stalls; any stall has its waits and a report, and no stall means nobody waits.
void check_incomplete(const CsvSchedule& csv) {
  try {
    validate_ops(csv.schedule, csv.locator());
  } catch (const InputError&) {
    return;
  }
  const std::optional<Deadlock> deadlock = find_deadlock(csv.schedule);
  const Timing timing = time_schedule(csv.schedule, ActionTimes{});
  fuzz::check(deadlock.has_value() == timing.stall.has_value(), "a schedule missing ops: checker and engine disagree");
  if (deadlock) {
    fuzz::check(!deadlock->cycle.empty() && !deadlock->blocked.empty(), "a hang without its waits");
    fuzz::check(deadlock->report(csv.schedule, csv.locator()).find("\nfix: ") != std::string::npos,
                "a hang's report without its fix");
  }
  if (!csv.schedule.has_comms()) return;
  try {
    validate_comms(csv.schedule, csv.locator(), csv.comm_locator());
  } catch (const InputError&) {
    return;
  }
  for (P2pMode mode : {P2pMode::Async, P2pMode::Rendezvous}) {
    const CommTiming t = time_lowered(csv.schedule, ActionTimes{}, {0.5, mode, 1, true});
    if (t.deadlock)
      fuzz::check(!t.deadlock->cycle.empty() && !t.deadlock->report(csv.schedule, csv.locator(), csv.comm_locator())
                                                      .empty(),
                  "a comm hang without its waits");
  }
}

void check_schedule(std::string_view text, CsvPlacement placement) {
  std::istringstream in{std::string(text)};
  CsvSchedule csv;
  try {
    csv = read_schedule_csv(in, "fuzz.csv", placement);
  } catch (const InputError& e) {
    fuzz::rejected(e.what());
    return;
  }
  check_round_trip(csv, placement);
  try {
    validate(csv.schedule, csv.locator());
  } catch (const InputError& e) {
    fuzz::rejected(e.what());
    check_incomplete(csv);
    return;
  }
  const std::optional<Deadlock> deadlock = find_deadlock(csv.schedule);
  const Timing timing = time_schedule(csv.schedule, ActionTimes{});
  fuzz::check(deadlock.has_value() == timing.stall.has_value(), "the checker and the engine disagree on a deadlock");
  fuzz::accepted(deadlock ? deadlock->chain() : "makespan " + std::to_string(timing.makespan));
  if (deadlock) {
    fuzz::check(!deadlock->cycle.empty(), "a deadlock without a cycle");
    fuzz::check(!deadlock->report(csv.schedule, csv.locator()).empty(), "an empty deadlock report");
    return;
  }
  fuzz::check(std::isfinite(timing.makespan) && timing.makespan > 0, "a valid schedule without a positive makespan");
  const bool written = csv.schedule.has_comms();
  const Schedule lowered = lower(csv.schedule, CommPlan::Torch);
  try {
    validate_comms(lowered, csv.locator(), written ? csv.comm_locator() : CommLocator(locate_comm_batch));
  } catch (const InputError& e) {
    fuzz::check(written, std::string("PyTorch's lowering breaks a comm rule: ") + e.what());
    fuzz::rejected(e.what());
    return;
  }
  for (P2pMode mode : {P2pMode::Async, P2pMode::Rendezvous}) {
    const CommTiming t = time_lowered(lowered, ActionTimes{}, {0.5, mode});
    if (t.deadlock) {
      fuzz::check(!t.deadlock->cycle.empty(), "a comm deadlock without a cycle");
      fuzz::check(!t.deadlock->report(lowered, csv.locator(), csv.comm_locator()).empty(), "an empty comm report");
      fuzz::check(written, "PyTorch's lowering of a deadlock-free order deadlocks");
      continue;
    }
    fuzz::check(std::isfinite(t.timing.makespan) && t.timing.makespan > 0, "a comm run without a positive makespan");
    if (!written && mode == P2pMode::Async) {
      const Timing compute_only = time_schedule(csv.schedule, ActionTimes{}, {0.5});
      fuzz::check(t.timing.makespan == compute_only.makespan, "async torch lowering and the compute-only engine differ");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::text_of(data, size);
  for (CsvPlacement placement : {CsvPlacement::Inferred, CsvPlacement::Loop, CsvPlacement::V})
    check_schedule(text, placement);
  return 0;
}
