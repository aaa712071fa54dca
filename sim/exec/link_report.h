// A link's row of links.csv and its windows of links_timeline.csv, from what the network recorded
// (network.h: LinkUsage). docs/outputs.md says what each column means.
#pragma once

#include "sim/exec/simulation_io.h"
#include "sim/network/network.h"

namespace pipegrid::sim {

/// The link's report: its bytes, busy time (flows' and analytic collectives' periods together), the
/// busiest `window` wherever it starts, its bytes per window of a grid of `window` (when `timeline`), and its sharing
/// policy as the platform declared it (SimGrid reports each direction of a SPLITDUPLEX link, NAME_UP
/// and NAME_DOWN, as a SHARED link of its own; the SplitDuplexLink that holds them tells).
LinkReport link_report(const LinkUsage& usage, double window, bool timeline = true);

}  // namespace pipegrid::sim
