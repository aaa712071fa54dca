#include "sim/cli/experiment_command.h"

#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "common/input_error.h"
#include "sim/cli/app.h"
#include "sim/cli/exit_codes.h"
#include "sim/sweep/experiment_file.h"
#include "sim/sweep/slurm.h"
#include "sim/sweep/sweep_spec.h"

extern char** environ;

namespace pipegrid::cli {

namespace {

struct RunFlags {
  std::string file;
  bool plot = false;
  std::vector<std::string> overrides;
};

struct SweepFlags {
  std::string file;
  std::string out;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  double timeout = 0;
  std::string shard;
  bool merge = false;
  bool slurm = false;
  std::string partition;
  int array_size = 1;
  int jobs_per_task = 1;
};

std::string self_binary() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string("pipegrid") : path.string();
}

// The value of the last `flag` among the arguments, or "".
std::string last_value(const std::vector<std::string>& args, const std::string& flag) {
  std::string value;
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == flag) value = args[i + 1];
  return value;
}

// experiments/plot/gantt.py DIR/trace.csv --out DIR/gantt.png, with the system's Python (Debian's
// matplotlib and pandas). False if it cannot start or fails; the run's own outputs stand regardless.
bool draw_gantt(const std::string& out) {
  const std::string script = std::string(PIPEGRID_SOURCE_DIR) + "/experiments/plot/gantt.py";
  std::vector<std::string> args = {"/usr/bin/python3", script, out + "/trace.csv", "--out", out + "/gantt.png"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return false;
  int status = 0;
  return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int run_experiment(const RunFlags& flags) {
  const toml::table table = sweep::read_toml(flags.file);
  CLI::App app;
  std::function<int()> unused;
  build_app(app, unused);
  const sweep::ExperimentCommand command = sweep::experiment_command(table, flags.file, app);
  std::vector<std::string> args{command.command};
  args.insert(args.end(), command.args.begin(), command.args.end());
  args.insert(args.end(), flags.overrides.begin(), flags.overrides.end());
  const std::string out = last_value(args, "--out");
  if (flags.plot && out.empty()) throw InputError("--plot: needs an output directory ([output] out or --out)");
  if (flags.plot && command.command != "simulate") throw InputError("--plot: draws a simulation's trace; this experiment runs " + command.command);
  const int code = run_command_line(args);
  if (code == kExitOk && flags.plot && !draw_gantt(out))
    std::cerr << "pipegrid: warning: the Gantt chart could not be drawn (experiments/plot/gantt.py)\n";
  return code;
}

std::optional<sweep::Shard> parse_shard(const std::string& text) {
  if (text.empty()) return std::nullopt;
  sweep::Shard shard;
  char slash = 0;
  std::istringstream in(text);
  if (!(in >> shard.index >> slash >> shard.count) || slash != '/' || !in.eof() || shard.count < 1 ||
      shard.index < 0 || shard.index >= shard.count)
    throw InputError(fmt::format("--shard {}: expected I/K with 0 <= I < K", text));
  return shard;
}

int run_sweep(const SweepFlags& flags) {
  if (flags.jobs < 1) throw InputError(fmt::format("--jobs {}: must be at least 1", flags.jobs));
  if (flags.timeout < 0) throw InputError(fmt::format("--timeout {}: must not be negative", flags.timeout));
  const sweep::SweepSpec spec = sweep::read_sweep(flags.file);
  sweep::SweepOptions options{flags.out, flags.jobs, flags.timeout, parse_shard(flags.shard), self_binary(),
                              run_command_line};
  if (flags.merge) {
    const std::size_t rows = sweep::merge_shards(spec, flags.out);
    std::cerr << fmt::format("sweep: merged {} of {} configurations into {}/results.csv\n", rows,
                             spec.configurations.size(), flags.out);
    return rows == spec.configurations.size() ? kExitOk : 1;
  }
  if (flags.slurm) {
    const std::string job = sweep::submit_array(flags.file, options, {flags.partition, flags.array_size, flags.jobs_per_task});
    std::cout << job << '\n';
    std::cerr << fmt::format("sweep: submitted job array {} ({} tasks); when it is done: pipegrid sweep {} --out {} --merge\n",
                             job, flags.array_size, flags.file, flags.out);
    return kExitOk;
  }
  const sweep::SweepTally tally = sweep::run_sweep(spec, options);
  std::cerr << fmt::format("sweep: {} configurations, {} already done, {} ran ({} ok) in {:.1f} s; results in {}\n",
                           tally.configurations, tally.already_done, tally.ran, tally.ok, tally.seconds,
                           sweep::results_path(flags.out, options.shard));
  return kExitOk;
}

}  // namespace

void add_experiment_commands(CLI::App& app, std::function<int()>& run) {
  auto run_flags = std::make_shared<RunFlags>();
  CLI::App* run_command =
      app.add_subcommand("run", "Run an experiment file (TOML); flags after it override its keys");
  run_command->add_option("file", run_flags->file, "experiment.toml: [platform] [parallel] [model] [sim] [output]")
      ->required();
  run_command->add_flag("--plot", run_flags->plot, "draw DIR/gantt.png from the run's trace");
  run_command->allow_extras();
  run_command->callback([&run, run_flags, run_command] {
    run_flags->overrides = run_command->remaining();
    run = [run_flags] { return run_experiment(*run_flags); };
  });

  auto sweep_flags = std::make_shared<SweepFlags>();
  CLI::App* sweep = app.add_subcommand("sweep", "Run every configuration of a sweep file, in parallel, resumably");
  sweep->add_option("file", sweep_flags->file, "sweep.toml: base experiment, [axes], [[zip]]")->required();
  sweep->add_option("--out", sweep_flags->out, "DIR: results.csv and runs/ID/ for each configuration")->required();
  sweep->add_option("--jobs", sweep_flags->jobs, "configurations at once")->capture_default_str();
  sweep->add_option("--timeout", sweep_flags->timeout, "seconds a run may take (0: no limit)")->capture_default_str();
  sweep->add_option("--shard", sweep_flags->shard, "I/K: run only configurations I, I + K, I + 2K, …");
  sweep->add_flag("--merge", sweep_flags->merge, "gather the shards' results into DIR/results.csv");
  sweep->add_flag("--slurm", sweep_flags->slurm, "submit the sweep as a Slurm job array instead of running it");
  sweep->add_option("--partition", sweep_flags->partition, "Slurm partition");
  sweep->add_option("--array-size", sweep_flags->array_size, "Slurm array tasks (shards)")->capture_default_str();
  sweep->add_option("--jobs-per-task", sweep_flags->jobs_per_task, "configurations at once in each task")
      ->capture_default_str();
  sweep->callback([&run, sweep_flags] { run = [sweep_flags] { return run_sweep(*sweep_flags); }; });
}

}  // namespace pipegrid::cli
