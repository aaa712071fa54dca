#include "sim/network/collectives.h"

#include <algorithm>
#include <limits>

#include <simgrid/s4u/Actor.hpp>

#include "sim/network/rails.h"

namespace sg4 = simgrid::s4u;

namespace pipegrid::sim {

void ring_allreduce_flows(Transfers& transfers, const std::vector<int>& group, int member, double bytes, FlowKind kind,
                          std::uint64_t (*tag_of_step)(std::uint64_t, std::uint64_t), std::uint64_t context,
                          RingPhases phases, RingFlows flows) {
  const int n = static_cast<int>(group.size());
  if (n < 2 || bytes <= 0) return;
  const int me = group[member];
  // This member's neighbours on each channel's ring.
  struct Neighbours {
    int next, prev;
  };
  std::vector<Neighbours> channels;
  Rails* rails = transfers.network().routes().rails();
  const std::vector<std::vector<int>>* rings = rails ? &rails->rings(group) : nullptr;
  if (!rings || rings->size() == 1) {
    channels.push_back({group[(member + 1) % n], group[(member + n - 1) % n]});
  } else {
    for (const std::vector<int>& ring : *rings) {
      const int i = static_cast<int>(std::find(ring.begin(), ring.end(), me) - ring.begin());
      channels.push_back({ring[(i + 1) % n], ring[(i + n - 1) % n]});
    }
  }
  const int c_count = static_cast<int>(channels.size());
  const double piece = bytes / n / c_count;
  const auto tag = [&](int step, int channel) {
    return tag_of_step(context, static_cast<std::uint64_t>(step) * c_count + channel);
  };
  const int steps = phases == RingPhases::AllReduce ? 2 * (n - 1) : n - 1;
  if (flows == RingFlows::Streamed || (flows == RingFlows::Auto && n > kStepRingMembers)) {
    double latency = 0;
    for (int c = 0; c < c_count; ++c) {
      const auto [next, prev] = channels[c];
      transfers.post_send({next, tag(0, c)}, FlowInfo{kind, me, next, steps * piece}, /*eager=*/true,
                          /*sender_waits=*/true);
      transfers.post_receive({me, tag(0, c)}, FlowInfo{kind, prev, me, steps * piece});
      latency = std::max(latency, transfers.network().routes().collective_bandwidth_and_latency(me, next).second);
    }
    for (int c = 0; c < c_count; ++c) {
      transfers.wait({me, tag(0, c)}, /*as_sender=*/false);
      transfers.wait({channels[c].next, tag(0, c)}, /*as_sender=*/true);
    }
    sg4::this_actor::sleep_for((steps - 1) * latency);
    return;
  }
  for (int step = 0; step < steps; ++step) {
    for (int c = 0; c < c_count; ++c) {
      const auto [next, prev] = channels[c];
      if (step > 0) transfers.wait({next, tag(step - 1, c)}, /*as_sender=*/true);
      transfers.post_send({next, tag(step, c)}, FlowInfo{kind, me, next, piece}, /*eager=*/true,
                          /*sender_waits=*/true);
      transfers.post_receive({me, tag(step, c)}, FlowInfo{kind, prev, me, piece});
    }
    // The next step forwards what this one received, so it cannot start before.
    for (int c = 0; c < c_count; ++c) transfers.wait({me, tag(step, c)}, /*as_sender=*/false);
  }
  for (int c = 0; c < c_count; ++c) transfers.wait({channels[c].next, tag(steps - 1, c)}, /*as_sender=*/true);
}

double ring_allreduce_seconds(Network& network, const std::vector<int>& group, double bytes, RingPhases phases) {
  const int n = static_cast<int>(group.size());
  if (n < 2 || bytes <= 0) return 0;
  if (phases != RingPhases::AllReduce) return ring_allreduce_seconds(network, group, bytes) / 2;
  // One ring carrying `share`: its narrowest hop's bandwidth and largest hop's latency.
  const auto ring_seconds = [&](const std::vector<int>& ring, double share) {
    const auto [bandwidth, latency] = network.routes().ring_bandwidth_and_latency(ring);
    return 2.0 * (n - 1) / n * share / bandwidth + 2.0 * (n - 1) * latency;
  };
  Rails* rails = network.routes().rails();
  if (!rails) return ring_seconds(group, bytes);
  const std::vector<std::vector<int>>& rings = rails->rings(group);
  double seconds = 0;
  for (const std::vector<int>& ring : rings)
    seconds = std::max(seconds, ring_seconds(ring, bytes / static_cast<double>(rings.size())));
  return seconds;
}

double p2p_seconds(Network& network, int src, int dst, double bytes) {
  if (bytes <= 0 || src == dst) return 0;
  const auto [bandwidth, latency] = network.routes().collective_bandwidth_and_latency(src, dst);
  return bytes / bandwidth + latency;
}

double all_to_all_seconds(Network& network, const std::vector<int>& group, double bytes) {
  const double n = static_cast<double>(group.size());
  double seconds = 0;
  for (int i : group)
    for (int j : group)
      if (i != j) seconds = std::max(seconds, p2p_seconds(network, i, j, bytes / n));
  return seconds;
}

AnalyticRingHops analytic_ring_hops(Network& network, const std::vector<int>& group, int member, RingPhases phases) {
  const int n = static_cast<int>(group.size());
  AnalyticRingHops hops;
  if (n < 2) return hops;
  hops.me = group[member];
  hops.hops_per_size = (phases == RingPhases::AllReduce ? 2.0 * (n - 1) : n - 1) / n;
  Rails* rails = network.routes().rails();
  const std::vector<std::vector<int>>* rings = rails ? &rails->rings(group) : nullptr;
  if (!rings || rings->size() <= 1) {
    hops.next.push_back(group[(member + 1) % n]);
    return hops;
  }
  hops.split = true;
  for (const std::vector<int>& ring : *rings) {
    const auto i = std::find(ring.begin(), ring.end(), hops.me) - ring.begin();
    hops.next.push_back(ring[static_cast<std::size_t>((i + 1) % n)]);
  }
  return hops;
}

void account_analytic_hops(Network& network, const AnalyticRingHops& hops, double bytes, double start, double end) {
  if (hops.next.empty() || bytes <= 0) return;
  const double share = hops.split ? bytes / static_cast<double>(hops.next.size()) : bytes;
  for (int next : hops.next) network.account_analytic(hops.me, next, hops.hops_per_size * share, start, end);
}

void account_analytic_ring(Network& network, const std::vector<int>& group, int member, double bytes,
                           RingPhases phases, double start, double end) {
  if (group.size() < 2 || bytes <= 0) return;
  account_analytic_hops(network, analytic_ring_hops(network, group, member, phases), bytes, start, end);
}

}  // namespace pipegrid::sim
