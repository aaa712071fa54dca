// The routes a job needs, asked of SimGrid itself once the platform is loaded and sealed, for the
// platforms whose routes the file does not spell out (a <cluster>, zone routes: PlatformFacts::
// routes_declared). SimGrid 3.32 answers a missing route with an exception (DijkstraZone and FloydZone:
// std::invalid_argument "No route from …"; NetZoneImpl::get_global_route: an AssertionError "Bad
// gateways …" for a zone route missing in a Full zone) or, in a Full zone without the route, with an
// empty list of links, which would make the transfer instantaneous: all three are "no route".
#pragma once

#include <simgrid/s4u/Engine.hpp>

#include "sim/exec/simulation_io.h"

namespace pipegrid::sim {

/// Throws InputError "FILE: no route from A to B, which WHY need" for the first needed route
/// (needed_routes.h) that SimGrid cannot give; returns whether input.rails holds and every route the
/// rails may use (rail_routes) exists, what SimulationInput::rails then is. Call after
/// seal_platform().
bool check_routes_in_simgrid(const simgrid::s4u::Engine& engine, const SimulationInput& input);

}  // namespace pipegrid::sim
