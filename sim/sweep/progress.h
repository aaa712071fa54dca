// A sweep's progress on stderr: a bar with an ETA on a terminal, one line per finished run otherwise.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "sim/sweep/results_csv.h"

namespace pipegrid::sweep {

class Progress {
 public:
  Progress(std::size_t total, std::size_t done);
  void finished(const ResultRow& row, const std::vector<std::string>& axes, std::size_t running);
  void bar(std::size_t running);
  void end();

 private:
  using Clock = std::chrono::steady_clock;
  std::size_t total_, done_, ran_ = 0;
  Clock::time_point start_;
  bool tty_;
};

}  // namespace pipegrid::sweep
