// A route as SimGrid lists its links, told back as the declared routes it follows: which netpoints
// a byte passes and which links it crosses between them, in the order it crosses them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/platform/platform_facts.h"

namespace pipegrid::platform {

/// The stretch between two adjacent netpoints: one declared <route>, or the way back of a
/// symmetrical one.
struct RouteHop {
  std::string from;
  std::string to;
  std::vector<LinkUse> links;  // in the order a byte crosses them
};

/// SimGrid's name of a link in a route as a link of the file and a direction: "X_UP" of a
/// SPLITDUPLEX link X is {X, UP}; any other name is itself with direction NONE.
LinkUse link_use_of(const PlatformFacts& facts, std::string_view simgrid_name);

/// Splits `simgrid_links`, the route from `src` to `dst` as Host::route_to lists it, into hops.
/// SimGrid 3.32 lists the hops in order but each hop's links reversed (insert_link_latency prepends
/// each hop's list reversed); a hop listed in declared order is accepted too, should a later
/// SimGrid fix that. nullopt when the links are no chain of declared routes from src to dst.
std::optional<std::vector<RouteHop>> route_hops(const PlatformFacts& facts, const std::string& src,
                                                const std::string& dst, const std::vector<LinkUse>& simgrid_links);

}  // namespace pipegrid::platform
