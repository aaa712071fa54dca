#include "sim/sweep/runner.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "common/exit_codes.h"
#include "common/input_error.h"
#include "common/interruption.h"
#include "common/fd_output.h"
#include "common/io_error.h"
#include "common/log.h"
#include "sim/input/option_schema.h"
#include "sim/input/relative_paths.h"
#include "sim/output/atomic_file.h"
#include "sim/output/folder_lock.h"
#include "sim/output/run_folder.h"
#include "sim/output/run_status.h"
#include "sim/run/input_files.h"
#include "sim/sweep/progress.h"
#include "sim/sweep/results_csv.h"

namespace pipegrid::sweep {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Running {
  const Configuration* configuration;
  pid_t pid;
  Clock::time_point started;
  bool timed_out = false;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// "parallel.microbatches=4 sim.schedule=1f1b": the configuration's axis values.
std::string configuration_text(const Configuration& c, const std::vector<std::string>& axes) {
  std::string text;
  for (std::size_t i = 0; i < axes.size(); ++i) text += fmt::format("{}{}={}", i ? " " : "", axes[i], c.values[i]);
  return text.empty() ? "the base experiment" : text;
}

// The first line of a run's stderr that is not a log line: its error, when it failed.
std::string first_result_line(const std::string& stderr_text) {
  std::istringstream lines(stderr_text);
  for (std::string line; std::getline(lines, line);)
    if (!line.starts_with("[pipegrid:")) return line;
  return "";
}

// The row of a run that has ended.
ResultRow outcome(const Running& run, int status, const fs::path& dir, double seconds, double timeout) {
  ResultRow row;
  row.id = run.configuration->id;
  row.values = run.configuration->values;
  // A run the sweep killed has run past the timeout by the time it is reaped.
  row.status = run_status(status, run.timed_out ? std::max(seconds, timeout + 1) : seconds, timeout);
  std::string first_line = first_result_line(read_text(dir / "stderr.txt"));
  if (first_line.starts_with("pipegrid: error: ")) first_line = first_line.substr(17);
  if (row.status == "timeout") {
    row.message = fmt::format("exceeded the per-run timeout of {} s", timeout);
  } else if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    if (code != 0) row.message = first_line.empty() ? fmt::format("exit code {}", code) : first_line;
  } else {
    row.message = fmt::format("killed by signal {}", WTERMSIG(status));
  }
  if (row.status == "ok") {
    try {
      const auto summary = nlohmann::json::parse(read_text(output::output_path(dir.string(), output::OutputFile::RunStdout)));
      for (std::string_view metric : metric_columns())
        if (summary.contains(metric))
          row.metrics[std::string(metric)] = fmt::format("{}", summary[metric].get<double>());
    } catch (const std::exception& e) {
      row.status = "error";
      row.message = fmt::format("unreadable summary: {}", e.what());
    }
  }
  output::write_atomically((dir / "wall_seconds").string(), fmt::format("{:.3f}\n", seconds));
  return row;
}

// Why a configuration whose row still stands must run again — what changed since the run recorded
// its inputs — or "" when nothing did.
std::string stale_reason(const fs::path& recorded_file, const nlohmann::json& now) {
  nlohmann::json recorded;
  try {
    recorded = nlohmann::json::parse(read_text(recorded_file));
  } catch (const std::exception&) {
    return "no record of the files it read";
  }
  if (recorded.value("version", "") != now["version"])
    return fmt::format("pipegrid {} → {}", recorded.value("version", "?"), now["version"].get<std::string>());
  std::map<std::string, std::string> before, after;
  for (const auto& f : recorded.value("files", nlohmann::json::array()))
    before[f.value("path", "")] = f.value("hash", "");
  for (const auto& f : now["files"]) after[f["path"]] = f["hash"];
  std::vector<std::string> changes;
  for (const auto& [path, hash] : after) {
    const auto it = before.find(path);
    if (it == before.end())
      changes.push_back(path + " newly read");
    else if (it->second != hash)
      changes.push_back(path + " changed");
  }
  for (const auto& [path, hash] : before)
    if (!after.contains(path)) changes.push_back(path + " no longer read");
  return fmt::format("{}", fmt::join(changes, ", "));
}

// Why a run with a row must run again because its folder says it never finished — its status.json
// says running (still going, or killed before it could say how it ended) or interrupted — or "".
// A folder without status.json was written by a pipegrid before it kept one: its row stands.
std::string unfinished_reason(const std::string& dir) {
  const std::optional<output::RecordedStatus> recorded = output::read_status(dir);
  if (!recorded || output::is_finished(recorded->name())) return "";
  return fmt::format("status.json says {}", recorded->name());
}

// What a run killed by SIGKILL (a timeout, the sweep itself) left of the files the sweep writes around
// it: their temporaries (NAME.PID.tmp). The run's own files are its next attempt's to clear
// (output_folder.h).
void remove_temporaries_of_a_killed_run(const fs::path& dir) {
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error))
    for (output::OutputFile file : {output::OutputFile::RunStdout, output::OutputFile::RunInputs,
                                    output::OutputFile::Experiment})
      if (output::is_temporary_of(entry.path().filename().string(), output::output_file(file).name))
        fs::remove(entry.path(), error);
}

// The configuration's experiment as its run executes it: outputs in its directory, the summary as JSON,
// logs at the sweep's level and no progress line (its stderr is a file).
input::Experiment for_run(const Configuration& c, const fs::path& dir, const std::string& log_level) {
  input::Experiment experiment = c.experiment;
  const input::Command command = experiment.command();
  experiment.values.set_text(*input::find_option(command, "out"), dir.string());
  experiment.values.set_text(*input::find_option(command, "format"), "json");
  experiment.values.set_text(*input::find_option(command, "log-level"), log_level);
  if (const input::OptionSpec* progress = input::find_option(command, "progress"))
    experiment.values.set_text(*progress, "off");
  return experiment;
}

// What SIGINT or SIGTERM leaves said on stderr, after the runs were sent the signal: where the
// finished rows are and how to finish the sweep (the runs' own folders say the rest).
class InterruptedSweepLine {
 public:
  explicit InterruptedSweepLine(const std::string& results) {
    slot_ = interruption::say_on_interrupt([&](int signal) {
      return fmt::format("pipegrid: sweep interrupted by {}; the finished runs' rows are in {}, and the same "
                         "command runs the rest\n",
                         interruption::signal_name(signal), results);
    });
  }
  ~InterruptedSweepLine() { interruption::forget(slot_); }
  InterruptedSweepLine(const InterruptedSweepLine&) = delete;
  InterruptedSweepLine& operator=(const InterruptedSweepLine&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace

std::string run_status(int wait_status, double seconds, double timeout) {
  if (timeout > 0 && seconds > timeout) return "timeout";
  if (!WIFEXITED(wait_status)) return "error";
  switch (WEXITSTATUS(wait_status)) {
    case kExitOk: return "ok";
    case kExitInputError: return "invalid";
    case kExitDeadlock: return "deadlock";
    case kExitPlatformFailed: return "platform-failed";
    default: return "error";
  }
}

std::string results_path(const std::string& out, const std::optional<Shard>& shard) {
  if (!shard) return output::output_path(out, output::OutputFile::Results);
  return output::output_path((fs::path(out) / "shards" / std::to_string(shard->index)).string(), output::OutputFile::Results);
}

SweepTally run_sweep(const SweepSpec& spec, const SweepOptions& options) {
  const auto begin = Clock::now();
  const std::string path = results_path(options.out, options.shard);
  output::make_output_dir(fs::path(path).parent_path().string());
  // One sweep per folder; a Slurm array's shards share it, each holding its own shard's folder
  // (folder_lock.h). Its runs, forked, hold it too while they live.
  using Mode = output::FolderLock::Mode;
  const output::FolderLock folder(options.out, options.shard ? Mode::Shared : Mode::Exclusive);
  std::optional<output::FolderLock> shard_folder;
  if (options.shard) shard_folder.emplace(fs::path(path).parent_path().string());
  const fs::path runs = fs::path(options.out) / "runs";
  fs::create_directories(runs);

  std::vector<const Configuration*> mine;
  for (const Configuration& c : spec.configurations)
    if (!options.shard || options.shard->contains(c.index)) mine.push_back(&c);
  std::map<std::string, ResultRow> done;
  for (ResultRow& row : read_results(path, spec.axes)) done[row.id] = std::move(row);

  // Keep the rows that still stand, as a fresh file that rows are appended to. ok, deadlock and
  // invalid are facts of a configuration — as long as its files and pipegrid are those it ran with; a
  // timeout or an error (a signal, a full disk) depends on the machine and the limits of that
  // invocation, so those configurations run again.
  SweepTally tally;
  run::InputFingerprints fingerprints;
  std::map<std::string, nlohmann::json> inputs_now;
  std::vector<ResultRow> kept;
  std::vector<const Configuration*> todo;
  for (const Configuration* c : mine) {
    nlohmann::json& inputs = inputs_now[c->id] = fingerprints.of(c->experiment);
    const auto it = done.find(c->id);
    if (it == done.end()) {
      todo.push_back(c);
      continue;
    }
    const std::string& status = it->second.status;
    std::string reason = options.force ? "--force" : status == "timeout" || status == "error" ? status : "";
    if (reason.empty()) reason = unfinished_reason((runs / c->id).string());
    if (reason.empty()) reason = stale_reason(output::output_path((runs / c->id).string(), output::OutputFile::RunInputs), inputs);
    if (reason.empty()) {
      kept.push_back(it->second);
    } else {
      ++tally.reran[reason];
      todo.push_back(c);
    }
  }
  write_results(path, spec.axes, kept);
  // Rows are appended as runs end, each written out at once: a killed sweep keeps every finished row.
  const int results_fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (results_fd < 0) throw_io_error(path, errno);
  FdOutput results(results_fd);

  tally.configurations = mine.size();
  tally.already_done = kept.size();
  Progress progress(mine.size(), kept.size());
  std::vector<Running> running;
  std::size_t next = 0;
  const int jobs = std::max(1, options.jobs);
  const ChildExits child_exits;
  // The runs end with the sweep: SIGINT and SIGTERM are passed on to their group, SIGKILL reaches them
  // as their PDEATHSIG. One group for all: a run starts no process of its own (common/child_groups.h).
  ChildGroups children(Grouping::Shared);
  const InterruptedSweepLine said(path);
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && static_cast<int>(running.size()) < jobs) {
      const Configuration* c = todo[next++];
      const fs::path dir = runs / c->id;
      fs::create_directories(dir);
      remove_temporaries_of_a_killed_run(dir);
      // Its paths as seen from the run's folder, where the file lives (relative_paths.h).
      input::Experiment seen_from_dir = c->experiment;
      seen_from_dir.values = input::paths_seen_from(c->experiment.values, dir);
      output::write_atomically(output::output_path(dir.string(), output::OutputFile::Experiment),
                               input::experiment_text(seen_from_dir) + '\n');
      output::write_json(dir.string(), output::OutputFile::RunInputs, inputs_now[c->id]);
      std::ofstream(dir / "attempts", std::ios::app) << "started\n";
      running.push_back({c,
                         start_run(options.run_configuration, for_run(*c, dir, options.log_level), dir, children,
                                   child_exits.original_mask()),
                         Clock::now()});
      log::sweep().debug("run {} started: {} (configuration {} of {}, pid {})", c->id, configuration_text(*c, spec.axes),
                         c->index + 1, spec.configurations.size(), running.back().pid);
    }
    progress.bar(running.size());
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      children.reaped(pid);
      const auto it = std::find_if(running.begin(), running.end(), [&](const Running& r) { return r.pid == pid; });
      if (it == running.end()) continue;
      const double seconds = std::chrono::duration<double>(Clock::now() - it->started).count();
      const ResultRow row = outcome(*it, status, runs / it->configuration->id, seconds, options.timeout_seconds);
      log::sweep().debug("run {} finished: {}{} after {:.3f} s", row.id, row.status,
                         row.message.empty() ? "" : " (" + row.message + ")", seconds);
      results.write(results_line(row) + '\n');
      results.flush();
      ++tally.ran;
      tally.ok += row.status == "ok";
      running.erase(it);
      progress.finished(row, spec.axes, running.size());
      continue;
    }
    for (Running& r : running)
      if (options.timeout_seconds > 0 && !r.timed_out &&
          std::chrono::duration<double>(Clock::now() - r.started).count() > options.timeout_seconds) {
        r.timed_out = true;
        kill(r.pid, SIGKILL);
      }
    child_exits.wait(std::chrono::milliseconds(100));  // the timeouts and the ETA are checked this often
  }
  progress.end();
  close(results_fd);
  // A row that could not be appended is a result lost: said once every run has ended.
  if (results.error() != 0) throw_io_error(path, results.error());

  // The final file: every row of this shard, in configuration order.
  std::map<std::string, std::size_t> order;
  for (const Configuration* c : mine) order[c->id] = c->index;
  std::vector<ResultRow> rows;
  for (ResultRow& row : read_results(path, spec.axes))
    if (order.contains(row.id)) rows.push_back(std::move(row));
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const ResultRow& a, const ResultRow& b) { return order[a.id] < order[b.id]; });
  rows.erase(std::unique(rows.begin(), rows.end(), [](const ResultRow& a, const ResultRow& b) { return a.id == b.id; }),
             rows.end());
  write_results(path, spec.axes, rows);
  tally.seconds = std::chrono::duration<double>(Clock::now() - begin).count();
  return tally;
}

}  // namespace pipegrid::sweep
