#include "sim/sweep/progress.h"

#include <fmt/format.h>
#include <unistd.h>

namespace pipegrid::sweep {

namespace {

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

Progress::Progress(std::size_t total, std::size_t done)
    : total_(total), done_(done), start_(Clock::now()), tty_(isatty(2)) {}

void Progress::finished(const ResultRow& row, const std::vector<std::string>& axes, std::size_t running) {
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
void Progress::bar(std::size_t running) {
  if (!tty_) return;
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const double eta = ran_ > 0 ? elapsed / static_cast<double>(ran_) * static_cast<double>(total_ - done_) : 0;
  const std::size_t width = 30, filled = total_ ? width * done_ / total_ : width;
  fmt::print(stderr, "\r[{}{}] {}/{} done, {} running, {} elapsed, ETA {}   ", std::string(filled, '#'),
             std::string(width - filled, '.'), done_, total_, running, clock_text(elapsed),
             ran_ ? clock_text(eta) : "?");
}
void Progress::end() {
  if (tty_) fmt::print(stderr, "\n");
}

}  // namespace pipegrid::sweep
