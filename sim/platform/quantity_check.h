// A platform attribute's quantity, read in SimGrid's units (units.h) and checked, or the one-line
// error of the element that holds it.
#pragma once

#include <optional>
#include <string>

#include "sim/platform/source_text.h"

namespace pipegrid::platform {

/// "WHAT must be a number with a SimGrid unit such as EXAMPLES, got TEXT".
std::string unreadable(const std::string& what, const std::string& text, const char* examples);

/// A speed or bandwidth: readable, then positive and finite.
double positive_quantity(const SourceText& source, const pugi::xml_node& node, const std::string& what,
                         const std::string& text, std::optional<double> value, const char* examples);

/// A speed attribute "f0, f1, …" (one per pstate; a host starts in pstate 0): every pstate checked
/// (the first positive, the others not negative), the first returned.
double first_pstate_speed(const SourceText& source, const pugi::xml_node& node, const std::string& what,
                          const std::string& text);

/// A latency: readable and finite, not negative.
double latency_value(const SourceText& source, const pugi::xml_node& node, const std::string& what,
                     const std::string& text);

}  // namespace pipegrid::platform
