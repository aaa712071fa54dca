#include "sim/cli/schedule_command.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <iostream>
#include <memory>

#include "schedules/deadlock.h"
#include "schedules/generators.h"
#include "common/input_error.h"
#include "schedules/schedule_csv.h"
#include "schedules/validate.h"
#include "common/choose.h"
#include "sim/cli/exit_codes.h"
#include "sim/cli/schedule_output.h"
#include "sim/cli/timeline.h"

namespace pipegrid::cli {

namespace {

enum class Format { Table, Timeline, Csv, Json };

struct TimeOptions {
  ActionTimes times;
  double p2p_latency = 0;
  std::string p2p_name = "async";
  P2pMode p2p = P2pMode::Async;  // parsed from p2p_name by validate_options
  std::string format_name = "table";
  Format format = Format::Table;  // parsed from format_name by validate_options
  std::string out;                // DIR: summary.json and schedule.csv; empty: nothing written
};

void add_time_options(CLI::App& command, TimeOptions& options) {
  command.add_option("--time-f", options.times.f, "forward time of one micro-batch on one virtual stage")
      ->capture_default_str();
  command.add_option("--time-b", options.times.b, "full backward time (I + W)")->capture_default_str();
  command.add_option("--time-w", options.times.w, "weight-gradient part W of the backward; I = B - W")
      ->capture_default_str();
  command.add_option("--time-fb", options.times.fb, "time of an overlapped F&B pair (default F + B)");
  command.add_option("--p2p-latency", options.p2p_latency, "added to every dependency between two ranks")
      ->capture_default_str();
  command.add_option("--p2p", options.p2p_name,
                     "async (a transfer delays its receiver only), blocking or batched (it also holds the sender)")
      ->capture_default_str();
  command.add_option("--format", options.format_name, "table, timeline (ASCII diagram), csv (the programs) or json")
      ->capture_default_str();
  command.add_option("--out", options.out, "directory for summary.json (the JSON metrics) and schedule.csv");
}

void validate_options(TimeOptions& options) {
  options.format = choose<Format>("--format", options.format_name,
                                  {{"table", Format::Table}, {"timeline", Format::Timeline}, {"csv", Format::Csv},
                                   {"json", Format::Json}});
  options.p2p = choose<P2pMode>("--p2p", options.p2p_name,
                                {{"async", P2pMode::Async}, {"blocking", P2pMode::Blocking}, {"batched", P2pMode::Batched}});
  options.times.validate();
  if (!(options.p2p_latency >= 0))
    throw InputError(fmt::format("--p2p-latency {}: must not be negative", options.p2p_latency));
}

// Validates, looks for a deadlock (report on stderr, exit 3), times and prints one schedule.
int check_time_and_print(Schedule schedule, const TimeOptions& options, const OpLocator& locate) {
  validate(schedule, locate);
  if (const auto deadlock = find_deadlock(schedule)) {
    std::cerr << deadlock->report(schedule, locate) << '\n';
    return kExitDeadlock;
  }
  if (options.format == Format::Csv) {
    write_schedule_csv(std::cout, schedule);
    return kExitOk;
  }
  const ScheduleRun run =
      time_run(std::move(schedule), options.times, {options.p2p_latency, options.format == Format::Timeline, options.p2p});
  if (!options.out.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.out, error);
    if (error) throw InputError(fmt::format("--out {}: cannot create the directory: {}", options.out, error.message()));
    std::ofstream(options.out + "/summary.json") << to_json(run).dump(2) << '\n';
    std::ofstream csv(options.out + "/schedule.csv");
    write_schedule_csv(csv, run.schedule);
  }
  switch (options.format) {
    case Format::Table: print_table(std::cout, run); break;
    case Format::Timeline: draw_timeline(std::cout, run); break;
    case Format::Json: std::cout << to_json(run).dump(2) << '\n'; break;
    case Format::Csv: break;
  }
  return kExitOk;
}

// Every schedule that accepts (p, m), each doing the same work: the given times are a rank's share
// of the model, split over the model stages of schedules that cut it finer. Sorted by makespan.
int compare_all(const ScheduleParams& params, const TimeOptions& options) {
  if (options.format == Format::Csv)
    throw InputError("--format csv: writes one schedule; choose one with --schedule NAME");
  std::vector<ScheduleRun> runs;
  std::vector<std::string> skipped;
  for (const GeneratorInfo& generator : schedule_generators()) {
    ScheduleParams mine = params;
    if (generator.chunks_are_fixed) mine.chunks = 0;
    Schedule schedule;
    try {
      schedule = generate_schedule(generator.name, mine);
    } catch (const InputError& e) {
      skipped.push_back(fmt::format("{}: {}", generator.name, e.what()));
      continue;
    }
    validate(schedule);
    if (const auto deadlock = find_deadlock(schedule)) {
      std::cerr << deadlock->report(schedule) << '\n';
      return kExitDeadlock;
    }
    const double stages = model_stages_per_rank(schedule);
    runs.push_back(time_run(std::move(schedule), per_model_stage(options.times, stages),
                            {options.p2p_latency, options.format == Format::Timeline, options.p2p}));
  }
  std::stable_sort(runs.begin(), runs.end(),
                   [](const ScheduleRun& a, const ScheduleRun& b) { return a.timing.makespan < b.timing.makespan; });
  switch (options.format) {
    case Format::Table: print_comparison(std::cout, runs, options.times, skipped); break;
    case Format::Json: std::cout << comparison_json(runs, options.times, skipped).dump(2) << '\n'; break;
    case Format::Timeline: {
      // One scale for all, so that equal lengths mean equal times across the diagrams.
      double scale = 0;
      for (const ScheduleRun& run : runs) scale = std::max(scale, timeline_scale(run));
      for (std::size_t i = 0; i < runs.size(); ++i) {
        if (i) std::cout << '\n';
        draw_timeline(std::cout, runs[i], scale);
      }
      for (const std::string& reason : skipped) std::cout << "\nskipped " << reason << '\n';
      break;
    }
    case Format::Csv: break;
  }
  return kExitOk;
}

std::string schedule_names() {
  std::string names = "all";
  for (const auto& g : schedule_generators()) names += fmt::format(", {}", g.name);
  return names;
}

}  // namespace

void add_schedule_commands(CLI::App& app, std::function<int()>& run) {
  // The options live as long as the app: the subcommands' callbacks read them after parsing.
  auto params = std::make_shared<ScheduleParams>();
  auto name = std::make_shared<std::string>();
  auto schedule_times = std::make_shared<TimeOptions>();
  CLI::App* schedule = app.add_subcommand(
      "schedule", "Generate a schedule, check it, time it without contention and print it");
  schedule->add_option("--schedule", *name, "one of: " + schedule_names())->required();
  schedule->add_option("--pp", params->ranks, "pipeline-parallel size p (ranks)")->required();
  schedule->add_option("--microbatches", params->microbatches, "micro-batches m per step")->required();
  schedule->add_option("--chunks", params->chunks, "virtual stages v per rank (interleaved: default 2)");
  add_time_options(*schedule, *schedule_times);
  schedule->callback([&run, params, name, schedule_times] {
    run = [params, name, schedule_times] {
      validate_options(*schedule_times);
      if (*name == "all") {
        if (params->ranks < 1) throw InputError(fmt::format("--pp {}: must be at least 1", params->ranks));
        if (params->microbatches < 1)
          throw InputError(fmt::format("--microbatches {}: must be at least 1", params->microbatches));
        return compare_all(*params, *schedule_times);
      }
      return check_time_and_print(generate_schedule(*name, *params), *schedule_times, locate_in_program);
    };
  });

  auto file = std::make_shared<std::string>();
  auto placement = std::make_shared<std::string>("inferred");
  auto check_times = std::make_shared<TimeOptions>();
  CLI::App* check = app.add_subcommand(
      "check", "Validate a schedule written as CSV (PyTorch's format), report a deadlock or time it");
  check->add_option("file", *file, "CSV: one line per rank, one action per cell (2F0, 3B1, 0I4, 0W4, (0F7;7B3))")
      ->required();
  check
      ->add_option("--placement", *placement,
                   "where stages live: inferred (the rank that runs a stage holds it), loop (s mod p) or v")
      ->capture_default_str();
  add_time_options(*check, *check_times);
  check->callback([&run, file, placement, check_times] {
    run = [file, placement, check_times] {
      validate_options(*check_times);
      const CsvSchedule csv = read_schedule_csv_file(
          *file, choose<CsvPlacement>("--placement", *placement,
                                      {{"inferred", CsvPlacement::Inferred}, {"loop", CsvPlacement::Loop},
                                       {"v", CsvPlacement::V}}));
      return check_time_and_print(csv.schedule, *check_times, csv.locator());
    };
  });
}

}  // namespace pipegrid::cli
