// Runs transfers and computations on a platform in SimGrid and reports when each ends: the hand
// computations of simgrid_transfers_test. Creates the process's one engine: one call per test.
#pragma once

#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

namespace pipegrid::platform::test_support {

/// `bytes` from host `src` to host `dst`, starting at time 0.
struct Flow {
  std::string src;
  std::string dst;
  double bytes = 0;
};

inline simgrid::s4u::Engine& quiet_engine() {
  static std::string program = "platform_sim_tests", quiet = "--log=xbt_cfg.thres:warning";
  static char* argv[] = {program.data(), quiet.data(), nullptr};
  static int argc = 2;
  static simgrid::s4u::Engine engine(&argc, argv);
  return engine;
}

/// The simulated time at which each flow completes, all starting together.
inline std::vector<double> finish_times(const std::string& platform, const std::vector<Flow>& flows) {
  simgrid::s4u::Engine& engine = quiet_engine();
  engine.load_platform(platform);
  std::vector<double> finished(flows.size(), -1);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    simgrid::s4u::Mailbox* mailbox = simgrid::s4u::Mailbox::by_name("flow" + std::to_string(i));
    const double bytes = flows[i].bytes;
    simgrid::s4u::Actor::create("sender", engine.host_by_name(flows[i].src), [mailbox, bytes] {
      static int payload = 0;
      mailbox->put(&payload, static_cast<uint64_t>(bytes));
    });
    simgrid::s4u::Actor::create("receiver", engine.host_by_name(flows[i].dst), [mailbox, &finished, i] {
      mailbox->get<int>();
      finished[i] = simgrid::s4u::Engine::get_clock();
    });
  }
  engine.run();
  return finished;
}

/// The simulated time `flops` take on `host` alone.
inline double compute_time(const std::string& platform, const std::string& host, double flops) {
  simgrid::s4u::Engine& engine = quiet_engine();
  engine.load_platform(platform);
  double finished = -1;
  simgrid::s4u::Actor::create("compute", engine.host_by_name(host), [&finished, flops] {
    simgrid::s4u::this_actor::execute(flops);
    finished = simgrid::s4u::Engine::get_clock();
  });
  engine.run();
  return finished;
}

}  // namespace pipegrid::platform::test_support
