#include "sim/run/schedule_job.h"

#include <algorithm>
#include <fmt/format.h>

#include "common/choose.h"
#include "common/input_error.h"
#include "schedules/deadlock.h"
#include "schedules/generators.h"
#include "schedules/schedule_csv.h"
#include "schedules/validate.h"
#include "sim/run/comm_options.h"
#include "sim/run/limits.h"
#include "sim/run/schedule_report.h"

namespace pipegrid::run {

namespace {

using input::OptionValues;

struct Request {
  ActionTimes times;
  CommPlan plan = CommPlan::Framework;
  CommTimingOptions engine;
  std::string format;
  std::string out;
};

Request request_of(const OptionValues& v) {
  Request r;
  r.times = {v.number("time-f"), v.number("time-b"), v.number("time-w"), v.given_number("time-fb")};
  r.times.validate();
  r.format = v.text("format");
  r.engine.p2p_latency = v.number("p2p-latency");
  r.engine.record_spans = r.format == "timeline";
  r.engine.p2p = p2p_mode_of(v);
  r.engine.channels = static_cast<int>(v.integer("p2p-channels"));
  r.plan = comm_plan_of(v);
  if (v.has("out")) r.out = v.text("out");
  return r;
}

// Validates, looks for a deadlock, times one schedule (not for --format csv, which only prints its
// programs) and writes its files.
ScheduleOutcome check_and_time(Schedule schedule, const Request& request, const OpLocator& locate,
                               const CommLocator& locate_batch = locate_comm_batch) {
  ScheduleOutcome outcome;
  validate(schedule, locate);
  if (const auto deadlock = find_deadlock(schedule)) {
    outcome.deadlock = deadlock->report(schedule, locate);
    return outcome;
  }
  ScheduleRun run = time_run(std::move(schedule), request.times, request.plan, request.engine, locate, locate_batch);
  if (run.deadlock) {
    outcome.deadlock = run.deadlock->report(run.schedule, locate, locate_batch);
    return outcome;
  }
  outcome.runs.push_back(std::move(run));
  if (!request.out.empty()) write_schedule_outputs(request.out, outcome.runs.front());
  return outcome;
}

// Every schedule that accepts (p, m), each doing the same work: the given times are a rank's share
// of the model, split over the model stages of schedules that cut it finer. Sorted by makespan.
ScheduleOutcome compare_all(const ScheduleParams& params, const Request& request) {
  if (request.format == "csv") throw InputError("--format csv: writes one schedule; choose one with --schedule NAME");
  ScheduleOutcome outcome;
  outcome.comparison = true;
  outcome.per_rank_share = request.times;
  for (const GeneratorInfo& generator : schedule_generators()) {
    ScheduleParams mine = params;
    if (generator.chunks_are_fixed) mine.chunks = 0;
    check_schedule_size(generator.name, mine);
    Schedule schedule;
    try {
      schedule = generate_schedule(generator.name, mine);
    } catch (const InputError& e) {
      outcome.skipped.push_back(fmt::format("{}: {}", generator.name, e.what()));
      continue;
    }
    validate(schedule);
    if (const auto deadlock = find_deadlock(schedule)) {
      outcome.deadlock = deadlock->report(schedule);
      return outcome;
    }
    const double stages = model_stages_per_rank(schedule);
    // A plan that does not apply to one schedule (DualPipe's to the others, per-op's crossed orders on
    // the V-shaped ones) is what the comparison says of it.
    ScheduleRun run;
    try {
      run = time_run(std::move(schedule), per_model_stage(request.times, stages), request.plan, request.engine);
    } catch (const InputError& e) {
      outcome.skipped.push_back(fmt::format("{}: {}", generator.name, e.what()));
      continue;
    }
    // A plan whose order deadlocks one schedule is what the comparison shows for it.
    if (run.deadlock)
      outcome.skipped.push_back(fmt::format("{}: deadlocks under {} p2p: {}", generator.name,
                                            p2p_mode_name(request.engine.p2p), run.deadlock->chain()));
    else
      outcome.runs.push_back(std::move(run));
  }
  std::stable_sort(outcome.runs.begin(), outcome.runs.end(),
                   [](const ScheduleRun& a, const ScheduleRun& b) { return a.timing.makespan < b.timing.makespan; });
  return outcome;
}

}  // namespace

ScheduleOutcome run_schedule(const OptionValues& v) {
  v.check_required();
  const Request request = request_of(v);
  const ScheduleParams params{static_cast<int>(v.integer("pp")), static_cast<int>(v.integer("microbatches")),
                              static_cast<int>(v.integer("chunks"))};
  const std::string& name = v.text("schedule");
  if (name == "all") return compare_all(params, request);
  check_schedule_size(name, params);
  return check_and_time(generate_schedule(name, params), request, locate_in_program);
}

ScheduleOutcome run_check(const OptionValues& v) {
  v.check_required();
  const Request request = request_of(v);
  const CsvSchedule csv = read_schedule_csv_file(
      v.text("file"),
      choose<CsvPlacement>(
          "--placement", v.text("placement"),
          {{"inferred", CsvPlacement::Inferred}, {"loop", CsvPlacement::Loop}, {"v", CsvPlacement::V}}));
  if (v.has("comm-plan") && csv.schedule.has_comms())
    throw InputError(fmt::format("--comm-plan {}: {} has comm actions of its own; a plan lowers a compute-only "
                                 "schedule",
                                 v.text("comm-plan"), csv.source));
  return check_and_time(csv.schedule, request, csv.locator(), csv.comm_locator());
}

}  // namespace pipegrid::run
