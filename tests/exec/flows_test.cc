// Flows and collectives against hand computations on tests/data/platforms/star-4gpu.xml: four GPUs,
// each with a 1 GB/s full-duplex port of 1 ms latency to one switch, so a transfer between two GPUs
// crosses two ports: 2 ms + bytes / (1 GB/s). Tolerance: 1e-9 relative unless stated.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <stdexcept>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "exec_support.h"
#include "sim/network/collectives.h"
#include "sim/exec/link_report.h"
#include "sim/exec/tags.h"

namespace pipegrid::sim {
namespace {

namespace sg4 = simgrid::s4u;

constexpr double kLatency = 2e-3;  // two ports of 1 ms
constexpr double kBandwidth = 1e9;

// Runs `body` in actors, one per GPU given, on the star platform, with a Network and Transfers;
// `setup` sees the Network before the simulation starts, and `after` once it has ended.
template <typename Body>
void on_star(const std::vector<int>& gpus, Body body, const std::function<void(Network&)>& setup = {},
             const std::function<void(Network&)>& after = {}) {
  int argc = 1;
  char name[] = "test";
  char* argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  engine.load_platform(test_support::kPlatforms + "/star-4gpu.xml");
  std::vector<sg4::Host*> hosts;
  for (int g = 0; g < 4; ++g) hosts.push_back(engine.host_by_name("gpu" + std::to_string(g)));
  Network network(hosts);
  if (setup) setup(network);
  Transfers transfers(network, 4);
  for (int g : gpus) sg4::Actor::create("gpu" + std::to_string(g), hosts[g], [&, g] { body(g, network, transfers); });
  engine.run();
  if (after) after(network);
}

int link_named(const Network& network, const std::string& name) {
  const auto& links = network.links();
  for (std::size_t i = 0; i < links.size(); ++i)
    if (links[i].link->get_name() == name) return static_cast<int>(i);
  return -1;
}

TEST(Flows, OneTransferTakesLatencyPlusBytesOverBandwidth) {
  double arrived = 0;
  on_star({0, 1}, [&](int gpu, Network&, Transfers& transfers) {
    const MessageKey key{1, 7};
    if (gpu == 0) transfers.post_send(key, FlowInfo{FlowKind::PipelineP2p, 0, 1, 1e9}, /*eager=*/true);
    if (gpu == 1) {
      transfers.post_receive(key, FlowInfo{FlowKind::PipelineP2p, 0, 1, 0});
      transfers.wait(key, /*as_sender=*/false);
      arrived = sg4::Engine::get_clock();
    }
  });
  EXPECT_NEAR(arrived, kLatency + 1e9 / kBandwidth, 1e-9);
}

TEST(Flows, TwoFlowsThroughOnePortShareItsBandwidth) {
  // GPU 0 sends 1 GB to GPU 1 and 1 GB to GPU 2 at once: both leave through GPU 0's port at 0.5 GB/s.
  std::vector<double> arrived(4, 0);
  on_star({0, 1, 2}, [&](int gpu, Network&, Transfers& transfers) {
    if (gpu == 0) {
      for (int dst : {1, 2}) transfers.post_send({dst, 1}, FlowInfo{FlowKind::PipelineP2p, 0, dst, 1e9}, true);
      return;
    }
    transfers.post_receive({gpu, 1}, FlowInfo{FlowKind::PipelineP2p, 0, gpu, 0});
    transfers.wait({gpu, 1}, false);
    arrived[gpu] = sg4::Engine::get_clock();
  });
  EXPECT_NEAR(arrived[1], kLatency + 2e9 / kBandwidth, 1e-9);
  EXPECT_NEAR(arrived[2], kLatency + 2e9 / kBandwidth, 1e-9);
}

TEST(Flows, TwoFlowsIntoOnePortShareItWhenOthersEndTheirLatencyFirst) {
  // GPUs 1 and 3 each send 0 bytes to GPU 2, then 1 GB to GPU 0: the two 1 GB flows share GPU 0's
  // port, 0.5 GB/s each, and arrive at 2 ms + 2 s. All four pay their latency at once, the empty
  // ones first; SimGrid 3.32's lazy solver then re-solved GPU 1's and GPU 3's up ports only (marked by
  // the empty flows), not GPU 0's down port, and gave each 1 GB flow the whole port: 1.002 s
  // (Network::mark_route).
  std::vector<double> arrived(4, 0);
  on_star({0, 1, 2, 3}, [&](int gpu, Network&, Transfers& transfers) {
    if (gpu == 1 || gpu == 3) {
      transfers.post_send({2, static_cast<std::uint64_t>(gpu)}, FlowInfo{FlowKind::ExpertAllToAll, gpu, 2, 0, -1, -1, false, static_cast<std::uint64_t>(gpu)}, true);
      transfers.post_send({0, static_cast<std::uint64_t>(gpu)}, FlowInfo{FlowKind::ExpertAllToAll, gpu, 0, 1e9, -1, -1, false, static_cast<std::uint64_t>(gpu)}, true);
      return;
    }
    for (int src : {1, 3}) {
      const MessageKey key{gpu, static_cast<std::uint64_t>(src)};
      transfers.post_receive(key, FlowInfo{FlowKind::ExpertAllToAll, src, gpu, 0});
      transfers.wait(key, false);
    }
    arrived[gpu] = sg4::Engine::get_clock();
  });
  EXPECT_NEAR(arrived[2], kLatency, 1e-9);
  EXPECT_NEAR(arrived[0], kLatency + 2e9 / kBandwidth, 1e-9);
}

TEST(Flows, RendezvousStartsWhenBothSidesHavePosted) {
  // The receiver posts at t = 1 s: a blocking send's flow starts then, not at the send.
  double sender_returned = 0;
  on_star({0, 1}, [&](int gpu, Network&, Transfers& transfers) {
    const MessageKey key{1, 3};
    if (gpu == 0) {
      transfers.post_send(key, FlowInfo{FlowKind::PipelineP2p, 0, 1, 1e9}, /*eager=*/false);
      transfers.wait(key, /*as_sender=*/true);
      sender_returned = sg4::Engine::get_clock();
    } else {
      sg4::this_actor::sleep_for(1);
      transfers.post_receive(key, FlowInfo{FlowKind::PipelineP2p, 0, 1, 0});
      transfers.wait(key, false);
    }
  });
  EXPECT_NEAR(sender_returned, 1 + kLatency + 1e9 / kBandwidth, 1e-9);
}

TEST(Flows, RingAllReduceTakesTheRingFormula) {
  // S = 1 GB over n = 4: 2(n − 1)/n · S / bw + 2(n − 1) · latency = 1.5 s + 12 ms. Each step's four
  // flows use four different up ports and four different down ports: no contention.
  const double bytes = 1e9;
  const double formula = 2.0 * 3 / 4 * bytes / kBandwidth + 2.0 * 3 * kLatency;
  std::vector<double> done(4, 0);
  double analytic = 0;
  on_star({0, 1, 2, 3}, [&](int gpu, Network& network, Transfers& transfers) {
    const std::vector<int> ring{0, 1, 2, 3};
    ring_allreduce_flows(transfers, ring, gpu, bytes, FlowKind::DataAllReduce,
                         [](std::uint64_t, std::uint64_t step) { return gradient_tag(TagSpace::Data, step); }, 0);
    done[gpu] = sg4::Engine::get_clock();
    if (gpu == 0) analytic = ring_allreduce_seconds(network, ring, bytes);
  });
  for (int gpu = 0; gpu < 4; ++gpu) EXPECT_NEAR(done[gpu], formula, 1e-9 * formula) << "gpu " << gpu;
  EXPECT_NEAR(analytic, formula, 1e-12 * formula);
}

TEST(Flows, ASenderDoneBeforeItsReceiverPostsLeavesTheMessage) {
  // An eager sender that waits for its own flow (ring steps do) may be done before the receiver even
  // posts: the message must still be there for it.
  double received = 0;
  on_star({0, 1}, [&](int gpu, Network&, Transfers& transfers) {
    const MessageKey key{1, 5};
    if (gpu == 0) {
      transfers.post_send(key, FlowInfo{FlowKind::DataAllReduce, 0, 1, 1e9}, /*eager=*/true, /*sender_waits=*/true);
      transfers.wait(key, /*as_sender=*/true);
      return;
    }
    sg4::this_actor::sleep_for(3);
    transfers.post_receive(key, FlowInfo{FlowKind::DataAllReduce, 0, 1, 0});
    transfers.wait(key, /*as_sender=*/false);
    received = sg4::Engine::get_clock();
  });
  EXPECT_NEAR(received, 3, 1e-9);  // the flow ended at 1.002 s, long before
}

TEST(Flows, ARingWaitsForItsLastMemberOnly) {
  // The same ring with GPU 2 arriving 0.5 s late: everyone finishes at exactly 0.5 s + the ring's
  // time — the late member delays the ring once, it does not stretch every step, and nobody gets
  // ahead of it. A step's flow starts when its sender posts it and takes T = L + (S/4)/bw = 0.252 s
  // (alone on its up port and on the receiver's down port: a GPU sends to one neighbour, one step at a
  // time). GPU g posts step k + 1 once its step-k send and the step-k piece from prev(g) are in:
  // post_g(k + 1) = max(post_g(k), post_prev(g)(k)) + T, and it is done at post_g(6). Ring 0→1→2→3→0:
  //   step 0 posted at 0, 0, 0.5, 0 (GPUs 0, 1, 2, 3)
  //   step 1: T, T, 0.5 + T, 0.5 + T        (GPU 3 waits for GPU 2's step 0)
  //   step 2: 0.5 + 2T, 2T, 0.5 + 2T, 0.5 + 2T
  //   step 3: 0.5 + 3T for all (GPU 1 waits for GPU 0), and so on: done at 0.5 + 6T for all,
  // 6T = 2(n − 1)/n · S/bw + 2(n − 1)·L, the ring formula.
  const double bytes = 1e9;
  const double formula = 2.0 * 3 / 4 * bytes / kBandwidth + 2.0 * 3 * kLatency;
  std::vector<double> done(4, 0);
  on_star({0, 1, 2, 3}, [&](int gpu, Network&, Transfers& transfers) {
    if (gpu == 2) sg4::this_actor::sleep_for(0.5);
    ring_allreduce_flows(transfers, {0, 1, 2, 3}, gpu, bytes, FlowKind::DataAllReduce,
                         [](std::uint64_t, std::uint64_t step) { return gradient_tag(TagSpace::Data, step); }, 0);
    done[gpu] = sg4::Engine::get_clock();
  });
  EXPECT_NEAR(formula, 6 * (kLatency + bytes / 4 / kBandwidth), 1e-12);
  for (int gpu = 0; gpu < 4; ++gpu) EXPECT_NEAR(done[gpu], 0.5 + formula, 1e-9) << "gpu " << gpu;
}

TEST(Flows, AStreamedRingTakesTheRingFormulaInOneFlowPerMember) {
  // --ring-flows streamed: each member sends its next member one flow of all 2(n − 1) pieces, 1.5 GB,
  // which takes L + 1.5 s alone on its ports, then waits the 5 further steps' latencies: 1.5 s + 6 L,
  // the formula, as step by step. Each up port carries the same 1.5 GB.
  const double bytes = 1e9;
  const double formula = 2.0 * 3 / 4 * bytes / kBandwidth + 2.0 * 3 * kLatency;
  std::vector<double> done(4, 0);
  double carried = 0;
  on_star(
      {0, 1, 2, 3},
      [&](int gpu, Network&, Transfers& transfers) {
        ring_allreduce_flows(transfers, {0, 1, 2, 3}, gpu, bytes, FlowKind::DataAllReduce,
                             [](std::uint64_t, std::uint64_t step) { return gradient_tag(TagSpace::Data, step); }, 0,
                             RingPhases::AllReduce, RingFlows::Streamed);
        done[gpu] = sg4::Engine::get_clock();
      },
      {}, [&](Network& network) { carried = network.links()[static_cast<std::size_t>(link_named(network, "gpu0-port_UP"))].bytes; });
  for (int gpu = 0; gpu < 4; ++gpu) EXPECT_NEAR(done[gpu], formula, 1e-9 * formula) << "gpu " << gpu;
  EXPECT_NEAR(carried, 1.5e9, 1);
}

TEST(Flows, AStreamedRingIsLateOnlyWhereItsLateMemberSends) {
  // GPU 2 posts 0.5 s late. Step by step every member ends at 0.5 s + the formula
  // (ARingWaitsForItsLastMemberOnly). Streamed, a flow starts when its sender posts: GPU 2's flow to GPU 3 ends 0.5 s late,
  // so GPUs 2 and 3 end at 0.5 s + the formula, GPUs 0 and 1, whose flows do not wait for GPU 2, at
  // the formula: a streamed ring does not carry a late member's delay around the ring.
  const double bytes = 1e9;
  const double formula = 2.0 * 3 / 4 * bytes / kBandwidth + 2.0 * 3 * kLatency;
  std::vector<double> done(4, 0);
  on_star({0, 1, 2, 3}, [&](int gpu, Network&, Transfers& transfers) {
    if (gpu == 2) sg4::this_actor::sleep_for(0.5);
    ring_allreduce_flows(transfers, {0, 1, 2, 3}, gpu, bytes, FlowKind::DataAllReduce,
                         [](std::uint64_t, std::uint64_t step) { return gradient_tag(TagSpace::Data, step); }, 0,
                         RingPhases::AllReduce, RingFlows::Streamed);
    done[gpu] = sg4::Engine::get_clock();
  });
  EXPECT_NEAR(done[0], formula, 1e-9);
  EXPECT_NEAR(done[1], formula, 1e-9);
  EXPECT_NEAR(done[2], 0.5 + formula, 1e-9);
  EXPECT_NEAR(done[3], 0.5 + formula, 1e-9);
}

TEST(Flows, LinksAccountBytesAndBusyTime) {
  std::vector<LinkUsage> links;
  on_star({0, 1}, [&](int gpu, Network& network, Transfers& transfers) {
    if (gpu == 0) {
      transfers.post_send({1, 1}, FlowInfo{FlowKind::PipelineP2p, 0, 1, 1e9}, true);
      return;
    }
    transfers.post_receive({1, 1}, FlowInfo{FlowKind::PipelineP2p, 0, 1, 0});
    transfers.wait({1, 1}, false);
    sg4::this_actor::sleep_for(1);  // after the flow: its completion has been accounted
    links = network.links();
  });
  // Every link of the platform is listed; the flow used gpu0's port (up) and gpu1's port (down).
  ASSERT_EQ(links.size(), 8u);
  std::erase_if(links, [](const LinkUsage& usage) { return usage.flows == 0; });
  ASSERT_EQ(links.size(), 2u);
  for (const LinkUsage& usage : links) {
    EXPECT_EQ(usage.bytes, 1e9);
    EXPECT_EQ(usage.flows, 1u);
    EXPECT_NEAR(usage.busy_time, kLatency + 1, 1e-9);
  }
}

TEST(Flows, AnAnalyticMirrorTakesItsImagesAccountAndNoOtherRoute) {
  // Two TP groups of two, {0, 1} and {2, 3}, rails 0 and 1. Member 1's ring hop 1 → 0 crosses gpu1's
  // port out and gpu0's port in; member 0's hop 0 → 1 crosses gpu0's out and gpu1's in, at the same
  // places. With those two links of hop 1 → 0 mirrors of hop 0 → 1's, hop 1 → 0 accounts nothing on
  // them, and at the end they carry what hop 0 → 1's links did: 1 GB over [0, 1] s, as the hop would
  // have put on them. Any other route over a mirror, or over a mirrored link, is refused.
  std::map<std::string, LinkReport> reports;
  int refused = 0;
  on_star(
      {0},
      [&](int, Network& network, Transfers&) {
        network.account_analytic(0, 1, 1e9, 0, 1);
        network.account_analytic(1, 0, 1e9, 0, 1);
        for (const auto& [src, dst] : {std::pair{1, 2}, std::pair{2, 0}, std::pair{3, 1}}) try {
            network.account_analytic(src, dst, 1e9, 0, 1);
          } catch (const std::logic_error&) {
            ++refused;
          }
        sg4::this_actor::sleep_for(2);
      },
      [](Network& network) {
        std::vector<int> analytic_mirror_of(network.links().size(), -1);
        analytic_mirror_of[link_named(network, "gpu1-port_UP")] = link_named(network, "gpu0-port_UP");
        analytic_mirror_of[link_named(network, "gpu0-port_DOWN")] = link_named(network, "gpu1-port_DOWN");
        network.use_rail_fold({0, 1, 0, 1}, {0, 0, 2, 2}, 2, std::vector<int>(network.links().size(), -1),
                              analytic_mirror_of, {{1, 0, 0, 1}});
      },
      [&](Network& network) {
        // Before the end, the mirrors hold nothing of their own.
        EXPECT_EQ(network.links()[link_named(network, "gpu1-port_UP")].bytes, 0);
        network.close_load();
        for (const LinkUsage& usage : network.links()) reports[usage.link->get_name()] = link_report(usage, 1e-3);
      });
  EXPECT_EQ(refused, 3);
  for (const char* name : {"gpu0-port_UP", "gpu1-port_DOWN", "gpu1-port_UP", "gpu0-port_DOWN"}) {
    EXPECT_EQ(reports.at(name).bytes, 1e9) << name;
    EXPECT_EQ(reports.at(name).analytic_bytes, 1e9) << name;
    EXPECT_NEAR(reports.at(name).busy_time, 1, 1e-12) << name;
    EXPECT_NEAR(reports.at(name).peak_bytes, 1e6, 1e-3) << name;  // 1 GB/s over a 1 ms window
  }
  for (const char* name : {"gpu2-port_UP", "gpu3-port_DOWN"}) EXPECT_EQ(reports.at(name).bytes, 0) << name;
}

}  // namespace
}  // namespace pipegrid::sim
