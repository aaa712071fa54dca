// The link report (links.csv, links_timeline.csv) against hand computations on
// tests/data/platforms/links-3gpu.xml: three GPUs with 1 GB/s ports of no latency to one switch, so a
// flow alone on its route runs at exactly 1 GB/s and two flows through one port get 0.5 GB/s each
// (SimGrid's max-min sharing). gpu0's and gpu1's ports are SPLITDUPLEX, gpu2's SHARED, `spare` unused.
#include <gtest/gtest.h>

#include <map>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "exec_support.h"
#include "sim/network/collectives.h"
#include "sim/exec/link_report.h"

namespace pipegrid::sim {
namespace {

namespace sg4 = simgrid::s4u;

constexpr double kGB = 1e9;

// Runs `body` in one actor per GPU, then reports every link of the platform at `window`, by name.
template <typename Body>
std::map<std::string, LinkReport> run_links(double window, Body body) {
  int argc = 1;
  char name[] = "test";
  char* argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  engine.load_platform(test_support::kPlatforms + "/links-3gpu.xml");
  std::vector<sg4::Host*> hosts;
  for (int g = 0; g < 3; ++g) hosts.push_back(engine.host_by_name("gpu" + std::to_string(g)));
  Network network(hosts, window);
  Transfers transfers(network, 3);
  for (int g = 0; g < 3; ++g)
    sg4::Actor::create("gpu" + std::to_string(g), hosts[g], [&, g] { body(g, network, transfers); });
  engine.run();
  network.close_load();
  std::map<std::string, LinkReport> reports;
  for (const LinkUsage& usage : network.links()) reports[usage.link->get_name()] = link_report(usage, window);
  return reports;
}

// A flow of `bytes` from `src` to `dst`, starting at `at` (both sides posted then).
void flow_at(int gpu, Transfers& transfers, int src, int dst, double bytes, double at) {
  if (gpu != src && gpu != dst) return;
  sg4::this_actor::sleep_until(at);
  const MessageKey key{dst, static_cast<std::uint64_t>(src)};
  if (gpu == src) transfers.post_send(key, FlowInfo{FlowKind::PipelineP2p, src, dst, bytes}, /*eager=*/true);
  if (gpu == dst) {
    transfers.post_receive(key, FlowInfo{FlowKind::PipelineP2p, src, dst, 0});
    transfers.wait(key, /*as_sender=*/false);
  }
}

double window_sum(const LinkReport& link) {
  double sum = 0;
  for (const auto& [k, bytes] : link.windows) sum += bytes;
  return sum;
}

TEST(LinkReport, OneFlowFillsItsLinkWhileBusy) {
  // 0.5 GB from gpu0 to gpu1 at 1 GB/s: busy [1, 1.5] s. At a 0.1 s window: five windows of 0.1 GB
  // (windows 10 … 14), mean utilisation over the busy time 0.5 / (1 × 0.5) = 1, the busiest window
  // full, 0.1 / (1 × 0.1) = 1, first reached at t = 1.
  auto links = run_links(0.1, [](int gpu, Network&, Transfers& transfers) { flow_at(gpu, transfers, 0, 1, 0.5 * kGB, 1); });
  for (const char* name : {"gpu0-port_UP", "gpu1-port_DOWN"}) {
    const LinkReport& link = links.at(name);
    EXPECT_DOUBLE_EQ(link.bytes, 0.5 * kGB) << name;
    EXPECT_EQ(link.flows, 1u) << name;
    EXPECT_NEAR(link.busy_time, 0.5, 1e-9) << name;
    EXPECT_NEAR(link.mean_utilization_busy(), 1.0, 1e-9) << name;
    EXPECT_NEAR(link.peak_utilization(), 1.0, 1e-9) << name;
    EXPECT_NEAR(link.peak_start, 1.0, 1e-9) << name;
    ASSERT_EQ(link.windows.size(), 5u) << name;
    for (std::size_t i = 0; i < 5; ++i) {
      EXPECT_EQ(link.windows[i].first, static_cast<std::int64_t>(10 + i)) << name;
      EXPECT_NEAR(link.windows[i].second, 0.1 * kGB, 1e-6 * kGB) << name;
    }
  }
  // The other directions carried nothing.
  EXPECT_EQ(links.at("gpu0-port_DOWN").bytes, 0);
  EXPECT_EQ(links.at("gpu1-port_UP").bytes, 0);
}

TEST(LinkReport, AWindowLongerThanTheFlowIsPartlyIdle) {
  // The same 0.5 GB at 1 GB/s in a 2 s window: at most 0.5 GB in any window, 0.5 / (1 × 2) = 0.25.
  auto links = run_links(2, [](int gpu, Network&, Transfers& transfers) { flow_at(gpu, transfers, 0, 1, 0.5 * kGB, 1); });
  EXPECT_NEAR(links.at("gpu0-port_UP").peak_utilization(), 0.25, 1e-9);
  EXPECT_NEAR(links.at("gpu0-port_UP").mean_utilization_busy(), 1.0, 1e-9);
}

TEST(LinkReport, TwoStaggeredFlowsSlidingPeak) {
  // A: 1 GB gpu0 → gpu1 from t = 0.3; B: 0.5 GB gpu0 → gpu2 from t = 0.8. Both leave through
  // gpu0-port_UP. [0.3, 0.8]: A alone at 1 GB/s, 0.5 GB of it done. From 0.8 they share gpu0's port,
  // 0.5 GB/s each: B's 0.5 GB and A's remaining 0.5 GB both end at 1.8.
  // gpu1-port_DOWN carries A alone: 1 GB/s on [0.3, 0.8], 0.5 GB/s on [0.8, 1.8].
  //   busy 1.5 s, mean utilisation 1 / (1 × 1.5) = 2/3;
  //   sliding 0.5 s window: the most is [0.3, 0.8), 0.5 GB, utilisation 1, at 0.3;
  //   fixed 0.5 s grid: [0, 0.5) 0.2 GB, [0.5, 1) 0.3 + 0.1 = 0.4 GB, [1, 1.5) 0.25 GB,
  //   [1.5, 2) 0.15 GB — the grid's busiest window is only 0.8 full.
  // gpu0-port_UP: 1 GB/s on [0.3, 1.8]: 1.5 GB, utilisation 1 throughout.
  // gpu2-port (SHARED, B in): 0.5 GB/s on [0.8, 1.8]: mean 0.5, busiest 0.5 s window 0.25 GB → 0.5.
  auto links = run_links(0.5, [](int gpu, Network&, Transfers& transfers) {
    if (gpu == 0) {
      sg4::this_actor::sleep_until(0.3);
      transfers.post_send({1, 0}, FlowInfo{FlowKind::PipelineP2p, 0, 1, 1 * kGB}, true);
      sg4::this_actor::sleep_until(0.8);
      transfers.post_send({2, 0}, FlowInfo{FlowKind::PipelineP2p, 0, 2, 0.5 * kGB}, true);
      return;
    }
    transfers.post_receive({gpu, 0}, FlowInfo{FlowKind::PipelineP2p, 0, gpu, 0});
    transfers.wait({gpu, 0}, false);
  });
  const LinkReport& a_in = links.at("gpu1-port_DOWN");
  EXPECT_NEAR(a_in.busy_time, 1.5, 1e-9);
  EXPECT_NEAR(a_in.mean_utilization_busy(), 2.0 / 3, 1e-9);
  EXPECT_NEAR(a_in.peak_utilization(), 1.0, 1e-9);
  EXPECT_NEAR(a_in.peak_start, 0.3, 1e-9);
  const std::vector<std::pair<std::int64_t, double>> grid = {{0, 0.2}, {1, 0.4}, {2, 0.25}, {3, 0.15}};
  ASSERT_EQ(a_in.windows.size(), grid.size());
  for (std::size_t i = 0; i < grid.size(); ++i) {
    EXPECT_EQ(a_in.windows[i].first, grid[i].first);
    EXPECT_NEAR(a_in.windows[i].second, grid[i].second * kGB, 1e-6 * kGB) << "window " << grid[i].first;
  }
  const LinkReport& out = links.at("gpu0-port_UP");
  EXPECT_DOUBLE_EQ(out.bytes, 1.5 * kGB);
  EXPECT_EQ(out.flows, 2u);
  EXPECT_NEAR(out.busy_time, 1.5, 1e-9);
  EXPECT_NEAR(out.mean_utilization_busy(), 1.0, 1e-9);
  EXPECT_NEAR(out.peak_utilization(), 1.0, 1e-9);
  const LinkReport& b_in = links.at("gpu2-port");
  EXPECT_NEAR(b_in.mean_utilization_busy(), 0.5, 1e-9);
  EXPECT_NEAR(b_in.peak_utilization(), 0.5, 1e-9);
  // Identity: the windows hold every byte each link carried.
  for (const auto& [name, link] : links) EXPECT_NEAR(window_sum(link), link.bytes, 1e-9 * kGB) << name;
}

TEST(LinkReport, SharingPolicyAsDeclaredAndUnusedLinksListed) {
  auto links = run_links(1, [](int gpu, Network&, Transfers& transfers) { flow_at(gpu, transfers, 0, 1, kGB, 0); });
  // Every link of the platform: two directions each of the split-duplex ports, the shared port, spare.
  std::vector<std::string> names;
  for (const auto& [name, link] : links) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"gpu0-port_DOWN", "gpu0-port_UP", "gpu1-port_DOWN", "gpu1-port_UP",
                                             "gpu2-port", "spare"}));
  for (const char* name : {"gpu0-port_DOWN", "gpu0-port_UP", "gpu1-port_DOWN", "gpu1-port_UP"})
    EXPECT_EQ(links.at(name).sharing_policy, "SPLITDUPLEX") << name;
  EXPECT_EQ(links.at("gpu2-port").sharing_policy, "SHARED");
  const LinkReport& spare = links.at("spare");
  EXPECT_EQ(spare.sharing_policy, "SHARED");
  EXPECT_EQ(spare.bandwidth, kGB);
  EXPECT_EQ(spare.bytes, 0);
  EXPECT_EQ(spare.flows, 0u);
  EXPECT_EQ(spare.busy_time, 0);
  EXPECT_EQ(spare.mean_utilization_busy(), 0);
  EXPECT_EQ(spare.peak_utilization(), 0);
  EXPECT_TRUE(spare.windows.empty());
}

TEST(LinkReport, AnalyticRingCountsItsHopsWithoutFlows) {
  // A ring all-reduce of S = 0.3 GB among gpu0, gpu1, gpu2 as a formula over [1, 3]: each member sends
  // 2(n − 1)/n · S = 4/3 · 0.3 = 0.4 GB to the next (0 → 1 → 2 → 0).
  //   gpu0-port_UP (0 → 1 out), gpu0-port_DOWN (2 → 0 in), gpu1-port_UP and _DOWN: 0.4 GB each;
  //   gpu2-port, shared, carries 2 → 0 out and 1 → 2 in: 0.8 GB.
  // Busy 2 s each; 0.4 GB over 2 s at 1 GB/s: mean utilisation 0.2; no flow.
  const double s = 0.3 * kGB;
  auto links = run_links(1, [&](int gpu, Network& network, Transfers&) {
    sg4::this_actor::sleep_until(1);
    account_analytic_ring(network, {0, 1, 2}, gpu, s, RingPhases::AllReduce, 1, 3);
  });
  for (const char* name : {"gpu0-port_UP", "gpu0-port_DOWN", "gpu1-port_UP", "gpu1-port_DOWN"}) {
    const LinkReport& link = links.at(name);
    EXPECT_NEAR(link.bytes, 0.4 * kGB, 1e-6) << name;
    EXPECT_EQ(link.analytic_bytes, link.bytes) << name;
    EXPECT_EQ(link.flows, 0u) << name;
    EXPECT_NEAR(link.busy_time, 2, 1e-12) << name;
    EXPECT_NEAR(link.mean_utilization_busy(), 0.2, 1e-9) << name;
    EXPECT_NEAR(link.peak_utilization(), 0.2, 1e-9) << name;  // an even rate: every 1 s window inside holds 0.2 GB
    EXPECT_NEAR(window_sum(link), link.bytes, 1e-6) << name;
  }
  EXPECT_NEAR(links.at("gpu2-port").bytes, 0.8 * kGB, 1e-6);
  EXPECT_NEAR(links.at("gpu2-port").busy_time, 2, 1e-12);
  EXPECT_EQ(links.at("spare").bytes, 0);
}

TEST(LinkReport, HalfRingCountsHalfTheBytes) {
  // A reduce-scatter of S among two GPUs: (n − 1)/n · S = S / 2 per member and hop.
  auto links = run_links(1, [&](int gpu, Network& network, Transfers&) {
    if (gpu < 2) account_analytic_ring(network, {0, 1}, gpu, kGB, RingPhases::ReduceScatter, 0, 1);
  });
  EXPECT_NEAR(links.at("gpu0-port_UP").analytic_bytes, 0.5 * kGB, 1e-6);
  EXPECT_NEAR(links.at("gpu1-port_DOWN").analytic_bytes, 0.5 * kGB, 1e-6);
}

TEST(LinkLoad, BusiestWindowOfOverlappingPieces) {
  // Rates: 1 on [0, 2], plus 3 on [1, 1.5] (pieces may overlap) → 1, 4, 1 on [0, 1], [1, 1.5], [1.5, 2].
  // A window of 1: [t, t + 1) holds 1 + 1.5 = 2.5 for any t in [0.5, 1] (the whole burst and 0.5 of
  // the rest); the earliest is 0.5.
  const std::vector<LoadPiece> load = {{0, 2, 2}, {1, 1.5, 1.5}};
  const BusiestWindow busiest = busiest_window(load, 1);
  EXPECT_NEAR(busiest.bytes, 2.5, 1e-12);
  EXPECT_NEAR(busiest.start, 0.5, 1e-12);
  // A fixed grid of 1: [0, 1) 1, [1, 2) 1 + 1.5 = 2.5.
  const auto grid = bytes_per_window(load, 1);
  ASSERT_EQ(grid.size(), 2u);
  EXPECT_NEAR(grid[0].second, 1, 1e-12);
  EXPECT_NEAR(grid[1].second, 2.5, 1e-12);
  EXPECT_NEAR(covered_time({{0, 1}, {3, 4}, {0.5, 1.5}}), 2.5, 1e-12);
}

TEST(LinkLoad, PiecesOverOneIntervalAreOnePieceAtTheirSummedRate) {
  // An analytic ring's hops through one switch link, member after member: [0, 1] at 100 B and at
  // 50 B, then [2, 3] at 30 B. By hand: rate 150 on [0, 1], 30 on [2, 3]; a window of 0.5 holds at
  // most 75 (from 0); busy 2 s.
  std::vector<LoadPiece> merged;
  for (LoadPiece piece : {LoadPiece{0, 1, 100}, LoadPiece{0, 1, 50}, LoadPiece{2, 3, 30}}) add_load(merged, piece);
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].bytes, 150);
  const BusiestWindow busiest = busiest_window(merged, 0.5);
  EXPECT_NEAR(busiest.bytes, 75, 1e-12);
  EXPECT_EQ(busiest.start, 0);
  // The same as the three pieces overlapping, unmerged.
  const BusiestWindow apart = busiest_window({{0, 1, 100}, {0, 1, 50}, {2, 3, 30}}, 0.5);
  EXPECT_NEAR(apart.bytes, busiest.bytes, 1e-12);
  EXPECT_EQ(apart.start, busiest.start);
  // A piece over [0, 1] after another interval is not merged into a piece it does not follow.
  add_load(merged, {0, 1, 10});
  EXPECT_EQ(merged.size(), 3u);
}

}  // namespace
}  // namespace pipegrid::sim
