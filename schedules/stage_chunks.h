// What a virtual stage is to the rank that holds it — which of its chunks, and for DualPipe which
// direction its micro-batches travel — as traces and pictures label an action (F3·c1, ↓/↑).
#pragma once

#include <string_view>
#include <vector>

#include "schedules/schedule.h"

namespace pipegrid {

/// Per stage, its index among its rank's stages in layout order: 0 for single-chunk schedules;
/// Megatron's interleaved placement (stage s on rank s mod p) gives s / p; a V (ZB-V, DualPipeV,
/// DualPipe's two directions) 0 for the stage on the way down, 1 for the one on the way back up.
std::vector<int> chunks_of_stages(const StageLayout& layout);

/// DualPipe and DualPipeV only: "down" when the stage's chain starts at rank 0 (micro-batches
/// entering at rank 0), "up" when it starts at the last rank (DualPipe's reverse direction); ""
/// for every other schedule. DualPipeV's one chain enters at rank 0, so all of it is "down".
std::string_view direction_of(const Schedule& schedule, int stage);

}  // namespace pipegrid
