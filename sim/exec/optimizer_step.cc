#include "sim/exec/optimizer_step.h"

#include <algorithm>
#include <cmath>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "sim/network/kill_safe_wait.h"

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

void StepBarrier::arrive_and_wait(int group, int members, int step, const std::vector<double>& latencies) {
  double release = 0;
  {
    std::unique_lock lock(*mutex_);
    Round& round = rounds_[{group, step}];
    for (double latency : latencies) round.max_latency = std::max(round.max_latency, latency);
    round.arrived += static_cast<int>(latencies.size());
    if (round.arrived == members) {
      const double levels = members > 1 ? std::ceil(std::log2(members)) : 0;
      round.release = sg4::Engine::get_clock() + 2 * levels * round.max_latency;
      changed_->notify_all();
    }
    wait_until(*changed_, lock, [&] { return round.release >= 0; });
    release = round.release;
  }
  const double now = sg4::Engine::get_clock();
  if (release > now) sg4::this_actor::sleep_until(release);
}

}  // namespace pipegrid::sim
