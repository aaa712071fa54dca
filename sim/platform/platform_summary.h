// What `pipegrid platform info` prints: a platform file in a screenful, and one route through it.
#pragma once

#include <iosfwd>

#include "sim/platform/platform_facts.h"
#include "sim/platform/route_query.h"

namespace pipegrid::platform {

/// The GPUs and nodes, GPUs per node, the distinct GPU speeds, memories and models (a value that only
/// some GPUs have is shown with their names: how a slowed GPU shows), the network model and its
/// <config>, the routing, and the link classes, each link that differs from its class named with its
/// line (how a hand-edited link shows).
void describe_platform(std::ostream& out, const PlatformFacts& facts);

/// The route hop by hop, each link with its direction, bandwidth and latency as SimGrid holds them,
/// the total latency, and the bottleneck: the link of lowest bandwidth, with what its sharing policy
/// means for the other direction.
void describe_route(std::ostream& out, const PlatformFacts& facts, const SimRoute& route);

}  // namespace pipegrid::platform
