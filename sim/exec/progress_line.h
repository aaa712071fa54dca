// --progress: one self-updating line on stderr while SimGrid runs a long simulation — how far the
// simulated clock got against the contention-free makespan, the share of the ranks' ops done, how many
// times the clock advanced, the wall time and an ETA. Redrawn from SimGrid's clock advances at most a
// few times a second, only ever on stderr: nothing else depends on it. A run that shows no line (auto
// with stderr not a terminal, or off) follows no clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

namespace pipegrid::sim {

/// When the line is shown: never (off), from the start (on), or on a terminal once the run has taken
/// kQuietSeconds (auto), so that short runs print nothing.
enum class ProgressShow : std::uint8_t { Never, AtOnce, AfterQuiet };
inline constexpr double kQuietSeconds = 2;
/// --progress on, off or auto; auto is AfterQuiet when stderr is a terminal, else Never.
ProgressShow progress_show(std::string_view setting, bool stderr_is_terminal);
/// The same, for this process's stderr.
ProgressShow progress_show(std::string_view setting);

/// Where a run stands.
struct ProgressSample {
  double simulated = 0;  // the simulated clock, s
  double wall = 0;       // since the run started, s
  std::uint64_t clock_advances = 0;
  std::uint64_t ops_done = 0;  // the ranks' ops (one per GPU and op, every step), done
  std::uint64_t ops_total = 0;
  double expected = 0;  // the contention-free engine's makespan of the whole run, s; 0: unknown
};
/// "simulating: t = 12.5 s of ~30.1 s contention-free, ops 41% (1234/3010), 8.1 k clock advances, wall
/// 0:08, ETA 0:11". The ETA scales the wall time so far by the simulated time still to run to the
/// contention-free makespan; past it (communication costs more than nothing), by the ops still to run.
std::string progress_text(const ProgressSample& sample);

/// The line itself, on `out`: when it is due, redrawn in place; ended with a newline once drawn.
class ProgressLine {
 public:
  static constexpr double kRedrawSeconds = 0.25;
  ProgressLine(std::FILE* out, ProgressShow show) : out_(out), show_(show) {}
  /// A line drawn and not ended (the run stopped by an exception) is ended, so that the error is a line of its own.
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  /// Whether a redraw is due at `wall` seconds since the run started.
  bool due(double wall) const;
  void draw(const ProgressSample& sample);
  /// The last state, then a newline, if a line was drawn at all.
  void end(const ProgressSample& sample);

 private:
  std::FILE* out_;
  ProgressShow show_;
  double drawn_at_ = -1;  // wall time of the last draw; < 0 before the first
  bool ended_ = false;
  std::size_t width_ = 0;  // of the last line drawn, to blank what a shorter one leaves
};

/// The line of the SimGrid run about to start in this process, redrawn from the engine's clock advances
/// with `sample` (the ops done; the rest is filled in here). Makes no connection when `show` is Never.
class ClockProgress {
 public:
  using Sample = std::function<void(ProgressSample&)>;
  ClockProgress(ProgressShow show, Sample sample);
  ~ClockProgress();
  ClockProgress(const ClockProgress&) = delete;
  ClockProgress& operator=(const ClockProgress&) = delete;
  /// The run is over: its last state, and the line ended.
  void end();

 private:
  void advanced(double simulated);
  ProgressSample sample_now(double simulated);

  ProgressLine line_;
  Sample sample_;
  std::chrono::steady_clock::time_point start_;
  std::uint64_t advances_ = 0;
  bool active_;
};

}  // namespace pipegrid::sim
