#include "sim/run/schedule_job.h"

#include <algorithm>
#include <fmt/format.h>

#include "common/input_error.h"
#include "schedules/deadlock.h"
#include "schedules/generators.h"
#include "schedules/schedule_csv.h"
#include "schedules/validate.h"
#include "sim/output/schedule_files.h"
#include "sim/exec/contention_free.h"
#include "sim/run/comm_plan_rules.h"
#include "sim/run/limits.h"
#include "sim/run/schedule_report.h"
#include "sim/run/simulation_run.h"
#include "sim/run/static_deadlock.h"

namespace pipegrid::run {

namespace {

// The deadlock's report for the terminal, and under --out its files.
template <typename Deadlock>
ScheduleOutcome deadlocked(const ScheduleCommandSpec& spec, const Deadlock& deadlock, std::string report,
                           const Schedule& schedule, const Timing& partial,
                           const std::vector<MessageSpan>& messages = {}) {
  ScheduleOutcome outcome;
  outcome.deadlock = std::move(report);
  if (!spec.out.empty())
    output::write_schedule_deadlock_files(spec.out, deadlock_json(deadlock, schedule, partial), schedule, partial,
                                          messages);
  return outcome;
}

// Validates, looks for a deadlock, times one schedule (not for --format csv, which only prints its
// programs) and writes its files. A schedule that misses ops is a hang where another rank waits for
// one (exit 3) and bad input where nobody does (validate_complete's message, exit 2).
ScheduleOutcome check_and_time(Schedule schedule, const ScheduleCommandSpec& spec, const OpLocator& locate,
                               const CommLocator& locate_batch = locate_comm_batch) {
  validate_ops(schedule, locate);
  if (schedule.has_comms() && !is_complete(schedule)) {
    // The file's own comm actions say where its ranks block: a receive whose sender skipped the op
    // waits for a send never posted.
    validate_comms(schedule, locate, locate_batch);
    CommTimingOptions engine = spec.engine;
    engine.record_spans = true;
    const CommTiming hang = time_lowered(schedule, spec.times, engine);
    if (hang.deadlock)
      return deadlocked(spec, *hang.deadlock, hang.deadlock->report(schedule, locate, locate_batch), schedule,
                        hang.timing, hang.messages);
    validate_complete(schedule);
  }
  if (find_deadlock(schedule)) {
    // Replayed with the given times, for when each rank blocked and the trace of what ran.
    const Timing replay = time_schedule(schedule, spec.times, {spec.engine.p2p_latency, true});
    const Deadlock deadlock = wait_cycle(schedule, *replay.stall);
    return deadlocked(spec, deadlock, deadlock.report(schedule, locate), schedule, replay);
  }
  validate_complete(schedule);
  ScheduleRun run = time_run(std::move(schedule), spec.times, spec.plan, spec.engine, locate, locate_batch);
  if (run.deadlock)
    return deadlocked(spec, *run.deadlock, run.deadlock->report(run.schedule, locate, locate_batch), run.schedule,
                      run.timing, run.messages);
  ScheduleOutcome outcome;
  outcome.runs.push_back(std::move(run));
  if (!spec.out.empty()) {
    const ScheduleRun& timed = outcome.runs.front();
    output::write_schedule_files(spec.out, to_json(timed), timed.schedule, timed.timing, timed.messages);
  }
  return outcome;
}

// A model's step: the schedule checked as with explicit times (its deadlocks and errors do not
// depend on them), then the run simulate would make of the same options resolved by the same
// function (resolve_simulation), priced and timed without contention (sim/exec/contention_free.h).
ScheduleOutcome time_model(Schedule schedule, const ScheduleCommandSpec& spec, const OpLocator& locate,
                           const CommLocator& locate_batch = locate_comm_batch) {
  ScheduleCommandSpec checked = spec;
  checked.out.clear();
  ScheduleOutcome outcome = check_and_time(schedule, checked, locate, locate_batch);
  if (outcome.deadlock) return spec.out.empty() ? outcome : check_and_time(std::move(schedule), spec, locate, locate_batch);
  ScheduleRun& run = outcome.runs.front();
  const ResolvedRun resolved = resolve_simulation(*spec.model_run);
  const sim::ContentionFree estimate = sim::contention_free_step(resolved.input);
  const CommTiming& replica = estimate.step.replicas.front();
  if (estimate.step.deadlocked())  // the explicit times' run found none: a plan's order cannot change with times
    throw std::logic_error("the contention-free engine deadlocked on a model where the checker found no deadlock");
  run.timing = replica.timing;
  run.messages = replica.messages;
  run.times = {};
  const PricedReplica& priced = estimate.job.replicas.front();
  ModelStep step;
  step.step_time = estimate.step.step_time;
  step.ops = priced.ops.stages();
  step.forward_messages = priced.forward_messages;
  step.backward_messages = priced.backward_messages;
  const sim::ParallelSizes& sizes = resolved.input.placement.sizes();
  step.echo = {{"model", resolved.model ? resolved.model->name : ""},
               {"tp", sizes.tp},
               {"pp", sizes.pp},
               {"dp", sizes.dp},
               {"platform", spec.model_run->platform.generated ? "--preset " + spec.model_run->platform.preset
                                                                : spec.model_run->platform.file},
               {"compute", resolved.compute_echo}};
  // Only with context parallelism, so that other runs keep their bytes.
  if (sizes.cp > 1) step.echo["cp"] = sizes.cp;
  run.model = std::move(step);
  if (!spec.out.empty()) {
    // summary.json carries what each stage's kernels cost, as simulate's does (make calibrate reads it).
    nlohmann::json summary = to_json(run);
    if (!resolved.compute_breakdown.is_null()) summary["compute_breakdown"] = resolved.compute_breakdown;
    output::write_schedule_files(spec.out, summary, run.schedule, run.timing, run.messages);
  }
  return outcome;
}

// Every schedule that accepts (p, m), each doing the same work: the given times are a rank's share
// of the model, split over the model stages of schedules that cut it finer. Sorted by makespan.
ScheduleOutcome compare_all(const ScheduleParams& params, const ScheduleCommandSpec& spec) {
  if (spec.format == "csv") throw InputError("--format csv: writes one schedule; choose one with --schedule NAME");
  ScheduleOutcome outcome;
  outcome.comparison = true;
  outcome.per_rank_share = spec.times;
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
      run = time_run(std::move(schedule), per_model_stage(spec.times, stages), spec.plan, spec.engine);
    } catch (const InputError& e) {
      outcome.skipped.push_back(fmt::format("{}: {}", generator.name, e.what()));
      continue;
    }
    // A plan whose order deadlocks one schedule is what the comparison shows for it.
    if (run.deadlock)
      outcome.skipped.push_back(fmt::format("{}: deadlocks under {} p2p: {}", generator.name,
                                            p2p_mode_name(spec.engine.p2p), run.deadlock->chain()));
    else
      outcome.runs.push_back(std::move(run));
  }
  std::stable_sort(outcome.runs.begin(), outcome.runs.end(),
                   [](const ScheduleRun& a, const ScheduleRun& b) { return a.timing.makespan < b.timing.makespan; });
  return outcome;
}

}  // namespace

ScheduleOutcome run_schedule(const ScheduleCommandSpec& spec) {
  if (spec.name == "all") {
    if (spec.model_run)
      throw InputError("--schedule all: compares schedules on a rank's share of explicit times; with a model, "
                       "time one schedule with --schedule NAME");
    return compare_all(spec.params, spec);
  }
  check_schedule_size(spec.name, spec.params);
  Schedule schedule = generate_schedule(spec.name, spec.params);
  if (spec.model_run) return time_model(std::move(schedule), spec, locate_in_program);
  return check_and_time(std::move(schedule), spec, locate_in_program);
}

ScheduleOutcome run_check(const ScheduleCommandSpec& spec) {
  const CsvSchedule csv = read_schedule_csv_file(spec.file, spec.placement);
  check_plan_applies(csv, spec.plan_given, spec.plan);
  if (spec.model_run) return time_model(csv.schedule, spec, csv.locator(), csv.comm_locator());
  return check_and_time(csv.schedule, spec, csv.locator(), csv.comm_locator());
}

ScheduleCommandSpec schedule_command_spec(const input::OptionValues& v, input::Command command,
                                          const std::optional<std::string>& out_dir) {
  v.check_required();
  ScheduleCommandSpec spec;
  if (command == input::Command::Check) {
    spec.file = v.text("file");
    spec.placement = value_named<CsvPlacement>(kCsvPlacements, v.text("placement"));
  } else {
    spec.name = v.text("schedule");
    spec.params = {static_cast<int>(v.integer("pp")), static_cast<int>(v.integer("microbatches")),
                   static_cast<int>(v.integer("chunks"))};
  }
  spec.times = {v.number("time-f"), v.number("time-b"), v.number("time-w"), v.given_number("time-fb")};
  spec.times.validate();
  if (model_given(v)) {
    // The same schedule again, as simulate's spec names it: generated, or the file with its stages placed.
    ScheduleSpec schedule;
    schedule.comm_plan = value_named(comm_plans(), v.text("comm-plan"));
    schedule.comm_plan_given = v.has("comm-plan");
    if (command == input::Command::Check) {
      schedule.file = spec.file;
      schedule.stage_placement = spec.placement;
    } else {
      schedule.name = spec.name;
      schedule.params = spec.params;
    }
    spec.model_run = model_timing_spec(v, std::move(schedule));
  } else {
    // A model's options (platform, layout, gradients) mean nothing to explicit times: say so rather
    // than ignore them.
    for (const auto& [option, value] : v.given())
      if (option->identity_when_given.contains(command))
        throw InputError(fmt::format("--{}: prices a model's step; give the model (--model NAME or --layers …) "
                                     "or leave it out with explicit --time-*",
                                     option->flag));
  }
  spec.format = v.text("format");
  spec.engine.p2p_latency = v.number("p2p-latency");
  spec.engine.p2p = value_named<P2pMode>(kP2pModes, v.text("p2p"));
  spec.engine.channels = static_cast<int>(v.integer("p2p-channels"));
  spec.plan = value_named(comm_plans(), v.text("comm-plan"));
  spec.plan_given = v.has("comm-plan");
  spec.out = out_dir ? *out_dir : v.text("out");
  // The timeline draws the spans; trace.csv holds them.
  spec.engine.record_spans = spec.format == "timeline" || !spec.out.empty();
  return spec;
}

}  // namespace pipegrid::run
