#include "sim/exec/progress_line.h"

#include <algorithm>
#include <fmt/format.h>
#include <simgrid/s4u/Engine.hpp>
#include <stdexcept>
#include <unistd.h>

namespace pipegrid::sim {

namespace {

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

std::string count_text(std::uint64_t n) {
  if (n >= 10'000'000) return fmt::format("{:.0f} M", static_cast<double>(n) / 1e6);
  if (n >= 1'000'000) return fmt::format("{:.1f} M", static_cast<double>(n) / 1e6);
  if (n >= 10'000) return fmt::format("{:.0f} k", static_cast<double>(n) / 1e3);
  return fmt::format("{}", n);
}

// SimGrid's signals cannot be disconnected: the hook is connected once per process and forwards to
// the run alive at the time, if any (one engine per process).
ClockProgress* g_current = nullptr;

}  // namespace

ProgressShow progress_show(std::string_view setting, bool stderr_is_terminal) {
  if (setting == "on") return ProgressShow::AtOnce;
  if (setting == "off") return ProgressShow::Never;
  if (setting == "auto") return stderr_is_terminal ? ProgressShow::AfterQuiet : ProgressShow::Never;
  throw std::invalid_argument(fmt::format("--progress {}: not on, off or auto", setting));
}

ProgressShow progress_show(std::string_view setting) { return progress_show(setting, isatty(STDERR_FILENO) != 0); }

std::string progress_text(const ProgressSample& s) {
  std::string text = s.expected > 0
                         ? fmt::format("simulating: t = {:.4g} s of ~{:.4g} s contention-free", s.simulated, s.expected)
                         : fmt::format("simulating: t = {:.4g} s simulated", s.simulated);
  if (s.ops_total > 0) {
    const double done = static_cast<double>(s.ops_done) / static_cast<double>(s.ops_total);
    text += fmt::format(", ops {:.0f}% ({}/{})", 100 * done, s.ops_done, s.ops_total);
  }
  text += fmt::format(", {} clock advances, wall {}", count_text(s.clock_advances), clock_text(s.wall));
  if (s.ops_done >= s.ops_total) return text;  // done, or nothing to count
  if (s.simulated > 0 && s.simulated < s.expected)
    return text + ", ETA " + clock_text(s.wall * (s.expected - s.simulated) / s.simulated);
  if (s.ops_done > 0)
    text +=
        ", ETA " + clock_text(s.wall * static_cast<double>(s.ops_total - s.ops_done) / static_cast<double>(s.ops_done));
  return text;
}

bool ProgressLine::due(double wall) const {
  switch (show_) {
    case ProgressShow::Never:
      return false;
    case ProgressShow::AtOnce:
      return drawn_at_ < 0 || wall - drawn_at_ >= kRedrawSeconds;
    case ProgressShow::AfterQuiet:
      return wall >= kQuietSeconds && (drawn_at_ < 0 || wall - drawn_at_ >= kRedrawSeconds);
  }
  return false;
}

void ProgressLine::draw(const ProgressSample& sample) {
  const std::string text = progress_text(sample);
  // A shorter line than the last is padded with blanks over what the last left.
  fmt::print(out_, "\r{}{}", text, std::string(width_ > text.size() ? width_ - text.size() : 0, ' '));
  std::fflush(out_);
  width_ = text.size();
  drawn_at_ = sample.wall;
}

void ProgressLine::end(const ProgressSample& sample) {
  if (drawn_at_ < 0 || ended_) return;
  draw(sample);
  fmt::print(out_, "\n");
  std::fflush(out_);
  ended_ = true;
}

ProgressLine::~ProgressLine() {
  if (drawn_at_ >= 0 && !ended_) {
    fmt::print(out_, "\n");
    std::fflush(out_);
  }
}

ClockProgress::ClockProgress(ProgressShow show, Sample sample)
    : line_(stderr, show),
      sample_(std::move(sample)),
      start_(std::chrono::steady_clock::now()),
      active_(show != ProgressShow::Never) {
  if (!active_) return;
  static const bool connected = [] {
    simgrid::s4u::Engine::on_time_advance_cb([](double) {
      if (g_current) g_current->advanced(simgrid::s4u::Engine::get_clock());
    });
    return true;
  }();
  (void)connected;
  g_current = this;
}

ClockProgress::~ClockProgress() {
  if (g_current == this) g_current = nullptr;
}

ProgressSample ClockProgress::sample_now(double simulated) {
  ProgressSample s;
  s.simulated = simulated;
  s.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  s.clock_advances = advances_;
  sample_(s);
  return s;
}

void ClockProgress::advanced(double simulated) {
  ++advances_;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (line_.due(wall)) line_.draw(sample_now(simulated));
}

void ClockProgress::end() {
  if (!active_) return;
  line_.end(sample_now(simgrid::s4u::Engine::get_clock()));
  if (g_current == this) g_current = nullptr;
}

}  // namespace pipegrid::sim
