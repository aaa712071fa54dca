// The Gantt chart's colours: those of experiments/plot/gantt.py (COMPUTE_COLOURS, COMM_COLOURS,
// BUBBLE_COLOUR, TAIL_COLOUR), so that the PNG and the HTML report read the same.
#pragma once

#include <string>
#include <string_view>

namespace pipegrid::report {

inline constexpr std::string_view kBubbleColour = "#f7c4c4";  // idle before the last computation ends
inline constexpr std::string_view kTailColour = "#dddddd";    // idle after it (gradient all-reduces)
inline constexpr std::string_view kDeadlockColour = "#c62828";

/// A computation's colour by the base of its kind (F-experts is an F): F, B, I, W, dense, optimizer.
std::string_view compute_colour(std::string_view kind);
/// The base kind a compute kind is drawn as ("F-experts" → "F"); unknown kinds are their own base.
std::string_view compute_base(std::string_view kind);
/// Whether a label on this base reads better in black (the light colours) than in white.
bool dark_text_on(std::string_view base);
/// A transfer's or collective's colour by kind.
std::string_view comm_colour(std::string_view kind);
/// `colour` (#rrggbb) lightened for chunk (virtual stage) `chunk` of its rank: chunk 0 is the colour
/// itself, each further chunk a step towards white (spec §3: "lighter for higher chunk").
std::string chunk_shade(std::string_view colour, int chunk);

}  // namespace pipegrid::report
