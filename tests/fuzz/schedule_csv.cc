// Fuzzes the schedule CSV reader (schedules/schedule_csv.h) and what `pipegrid check` does with a read
// that succeeds, under each of the three placements: validate, then, for a valid schedule, the
// deadlock checker and the contention-free engine with the default op times. InputError is the
// expected rejection; any other exception, a crash, undefined behaviour, a leak or a hang is a bug.
// Also checked: what was read is written back (write_schedule_csv) and reads as the same programs,
// and the checker and the engine agree on whether the schedule deadlocks.
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "common/input_error.h"
#include "fuzz_support.h"
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
  fuzz::check(again.schedule.ranks == csv.schedule.ranks && again.schedule.microbatches == csv.schedule.microbatches &&
                  again.schedule.layout.rank_of_stage == csv.schedule.layout.rank_of_stage,
              "written and read back, the layout differs");
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
    return;
  }
  const std::optional<Deadlock> deadlock = find_deadlock(csv.schedule);
  const Timing timing = time_schedule(csv.schedule, ActionTimes{});
  fuzz::check(deadlock.has_value() == timing.stall.has_value(), "the checker and the engine disagree on a deadlock");
  fuzz::accepted(deadlock ? deadlock->chain() : "makespan " + std::to_string(timing.makespan));
  if (deadlock) {
    fuzz::check(!deadlock->cycle.empty(), "a deadlock without a cycle");
    fuzz::check(!deadlock->report(csv.schedule, csv.locator()).empty(), "an empty deadlock report");
  } else {
    fuzz::check(std::isfinite(timing.makespan) && timing.makespan > 0, "a valid schedule without a positive makespan");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::text_of(data, size);
  for (CsvPlacement placement : {CsvPlacement::Inferred, CsvPlacement::Loop, CsvPlacement::V})
    check_schedule(text, placement);
  return 0;
}
