#include "sim/sweep/runner.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include "common/input_error.h"
#include "sim/sweep/experiment_file.h"
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

// Sleeping between polls costs a short run most of a poll interval; instead SIGCHLD stays blocked while
// the sweep runs, and the loop waits for it (or for the next timeout check) with sigtimedwait.
class ChildExits {
 public:
  ChildExits() {
    sigemptyset(&child_);
    sigaddset(&child_, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &child_, &before_);
  }
  ~ChildExits() {
    // A SIGCHLD still pending would be delivered on unblocking: take it first (its default is ignore).
    const timespec now{0, 0};
    while (sigtimedwait(&child_, nullptr, &now) > 0) {}
    pthread_sigmask(SIG_SETMASK, &before_, nullptr);
  }
  ChildExits(const ChildExits&) = delete;
  ChildExits& operator=(const ChildExits&) = delete;

  /// Returns when a child may have exited or after `timeout`.
  void wait(std::chrono::milliseconds timeout) const {
    const timespec limit{static_cast<time_t>(timeout.count() / 1000), static_cast<long>(timeout.count() % 1000) * 1000000};
    sigtimedwait(&child_, nullptr, &limit);
  }
  /// The mask the runs start with: the one before the sweep, SIGCHLD not blocked.
  const sigset_t& original_mask() const { return before_; }

 private:
  sigset_t child_{};
  sigset_t before_{};
};

// Starts one configuration as `pipegrid run DIR/experiment.toml --out DIR --format json` in a child
// of this process, its stdout and stderr in DIR. A fork rather than an exec of the binary: this process
// has already loaded and relocated SimGrid and its dependencies (ns-3 among them), which costs a new
// process 35 ms of its 45 ms for a small configuration; the child still gets SimGrid's process-wide
// state to itself, as no simulation has run here.
pid_t start_run(const RunConfiguration& run, const fs::path& dir, const sigset_t& mask) {
  const std::vector<std::string> args = {"run", (dir / "experiment.toml").string(), "--out", dir.string(), "--format",
                                         "json"};
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);  // or the child would write this process's buffered output again
  const pid_t pid = fork();
  if (pid < 0) throw InputError(fmt::format("sweep: cannot start a run: {}", std::strerror(errno)));
  if (pid > 0) return pid;

  pthread_sigmask(SIG_SETMASK, &mask, nullptr);
  const auto redirect = [](const fs::path& file, int fd) {
    const int opened = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (opened < 0 || dup2(opened, fd) < 0) _exit(1);
    close(opened);
  };
  redirect(dir / "stdout.json", STDOUT_FILENO);
  redirect(dir / "stderr.txt", STDERR_FILENO);
  int code = 1;
  try {
    code = run(args);
  } catch (const std::exception& e) {
    std::cerr << "pipegrid: error: " << e.what() << '\n';
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  _exit(code);  // not exit(): the parent's objects (the open results file, …) are not the child's to finish
}

ResultRow outcome(const Running& run, int status, const fs::path& dir, double seconds) {
  ResultRow row;
  row.id = run.configuration->id;
  row.values = run.configuration->values;
  std::string first_line = read_text(dir / "stderr.txt");
  first_line = first_line.substr(0, first_line.find('\n'));
  if (first_line.starts_with("pipegrid: error: ")) first_line = first_line.substr(17);
  if (run.timed_out) {
    row.status = "timeout";
  } else if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    row.status = code == 0 ? "ok" : code == 2 ? "invalid" : code == 3 ? "deadlock" : "error";
    if (code != 0) row.message = first_line.empty() ? fmt::format("exit code {}", code) : first_line;
  } else {
    row.status = "error";
    row.message = fmt::format("killed by signal {}", WTERMSIG(status));
  }
  if (row.status == "ok") {
    try {
      const auto summary = nlohmann::json::parse(read_text(dir / "stdout.json"));
      for (const char* metric : {"makespan", "bubble_fraction", "tflops_per_gpu", "mfu"})
        if (summary.contains(metric)) row.metrics[metric] = fmt::format("{}", summary[metric].get<double>());
    } catch (const std::exception& e) {
      row.status = "error";
      row.message = fmt::format("unreadable summary: {}", e.what());
    }
  }
  if (row.status == "timeout") row.message = "exceeded the per-run timeout";
  std::ofstream(dir / "wall_seconds") << fmt::format("{:.3f}\n", seconds);
  return row;
}

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

class Progress {
 public:
  Progress(std::size_t total, std::size_t done) : total_(total), done_(done), start_(Clock::now()), tty_(isatty(2)) {}
  void finished(const ResultRow& row, const std::vector<std::string>& axes, std::size_t running) {
    ++done_;
    ++ran_;
    if (tty_) {
      bar(running);
      return;
    }
    std::string what;
    for (std::size_t i = 0; i < axes.size(); ++i) what += fmt::format("{}{}={}", i ? " " : "", axes[i], row.values[i]);
    fmt::print(stderr, "[{}/{}] {}: {}{}\n", done_, total_, what, row.status,
               row.message.empty() ? "" : " (" + row.message + ")");
  }
  void bar(std::size_t running) {
    if (!tty_) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double eta = ran_ > 0 ? elapsed / static_cast<double>(ran_) * static_cast<double>(total_ - done_) : 0;
    const std::size_t width = 30, filled = total_ ? width * done_ / total_ : width;
    fmt::print(stderr, "\r[{}{}] {}/{} done, {} running, {} elapsed, ETA {}   ", std::string(filled, '#'),
               std::string(width - filled, '.'), done_, total_, running, clock_text(elapsed),
               ran_ ? clock_text(eta) : "?");
  }
  void end() {
    if (tty_) fmt::print(stderr, "\n");
  }

 private:
  std::size_t total_, done_, ran_ = 0;
  Clock::time_point start_;
  bool tty_;
};

}  // namespace

std::string results_path(const std::string& out, const std::optional<Shard>& shard) {
  if (!shard) return (fs::path(out) / "results.csv").string();
  return (fs::path(out) / "shards" / std::to_string(shard->index) / "results.csv").string();
}

SweepTally run_sweep(const SweepSpec& spec, const SweepOptions& options) {
  const auto begin = Clock::now();
  const std::string path = results_path(options.out, options.shard);
  fs::create_directories(fs::path(path).parent_path());
  fs::create_directories(fs::path(options.out) / "runs");

  std::vector<const Configuration*> mine;
  for (const Configuration& c : spec.configurations)
    if (!options.shard || options.shard->contains(c.index)) mine.push_back(&c);
  std::map<std::string, ResultRow> done;
  for (ResultRow& row : read_results(path, spec.axes)) done[row.id] = std::move(row);
  // Keep the rows that are still part of the sweep, as a fresh file that rows are appended to. ok,
  // deadlock and invalid are facts of a configuration; a timeout or an error (a signal, a full disk)
  // depends on the machine and the limits of that invocation, so those configurations run again.
  std::vector<ResultRow> kept;
  std::vector<const Configuration*> todo;
  for (const Configuration* c : mine) {
    const auto it = done.find(c->id);
    const bool settled = it != done.end() && it->second.status != "timeout" && it->second.status != "error";
    if (settled) kept.push_back(it->second);
    else todo.push_back(c);
  }
  write_results(path, spec.axes, kept);
  std::ofstream results(path, std::ios::app);

  SweepTally tally;
  tally.configurations = mine.size();
  tally.already_done = kept.size();
  Progress progress(mine.size(), kept.size());
  std::vector<Running> running;
  std::size_t next = 0;
  const int jobs = std::max(1, options.jobs);
  const ChildExits child_exits;
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && static_cast<int>(running.size()) < jobs) {
      const Configuration* c = todo[next++];
      const fs::path dir = fs::path(options.out) / "runs" / c->id;
      fs::create_directories(dir);
      std::ofstream(dir / "experiment.toml") << c->experiment << '\n';
      std::ofstream(dir / "attempts", std::ios::app) << "started\n";
      running.push_back({c, start_run(options.run_configuration, dir, child_exits.original_mask()), Clock::now()});
    }
    progress.bar(running.size());
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      const auto it = std::find_if(running.begin(), running.end(), [&](const Running& r) { return r.pid == pid; });
      if (it == running.end()) continue;
      const double seconds = std::chrono::duration<double>(Clock::now() - it->started).count();
      const ResultRow row = outcome(*it, status, fs::path(options.out) / "runs" / it->configuration->id, seconds);
      results << results_line(row) << std::endl;  // flushed: a killed sweep keeps every finished row
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
  results.close();

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
