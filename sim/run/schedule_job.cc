#include "sim/run/schedule_job.h"

#include <algorithm>
#include <fmt/format.h>

#include "common/choose.h"
#include "common/input_error.h"
#include "schedules/deadlock.h"
#include "schedules/generators.h"
#include "schedules/schedule_csv.h"
#include "schedules/validate.h"
#include "sim/run/limits.h"
#include "sim/run/schedule_report.h"

namespace pipegrid::run {

namespace {

using input::OptionValues;

struct Request {
  ActionTimes times;
  TimingOptions engine;
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
  r.engine.p2p =
      choose<P2pMode>("--p2p", v.text("p2p"),
                      {{"async", P2pMode::Async}, {"blocking", P2pMode::Blocking}, {"batched", P2pMode::Batched}});
  if (v.has("out")) r.out = v.text("out");
  return r;
}

// Validates, looks for a deadlock, times one schedule (not for --format csv, which only prints its
// programs) and writes its files.
ScheduleOutcome check_and_time(Schedule schedule, const Request& request, const OpLocator& locate) {
  ScheduleOutcome outcome;
  validate(schedule, locate);
  if (const auto deadlock = find_deadlock(schedule)) {
    outcome.deadlock = deadlock->report(schedule, locate);
    return outcome;
  }
  if (request.format == "csv") {
    outcome.runs.push_back({std::move(schedule), request.times, request.engine, {}, {}});
    return outcome;
  }
  outcome.runs.push_back(time_run(std::move(schedule), request.times, request.engine));
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
    outcome.runs.push_back(time_run(std::move(schedule), per_model_stage(request.times, stages), request.engine));
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
  return check_and_time(csv.schedule, request, csv.locator());
}

}  // namespace pipegrid::run
