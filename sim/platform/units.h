// SimGrid's quantities as text: "312Tf", "25GBps", "200Gbps", "500ns". Read as SimGrid 3.32 reads them
// (src/xbt/xbt_parse_units.cpp), so that what pipegrid checks before loading a platform is what SimGrid
// will load; written in the largest unit in which the value is at least 1, to 15 significant digits.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pipegrid::platform {

// Each parser reads a number as SimGrid's strtod does, then a unit that must be one of those listed,
// spelled exactly (case matters). nullopt for text SimGrid rejects: no number, an unknown unit, a
// value out of range. Signs are kept: checking that a bandwidth is positive is the caller's rule.

/// Flop per second. Units: f or flops, with the decimal prefixes k M G T P E Z Y ("Tf") or spelled
/// out ("teraflops"). A plain number is flop/s (SimGrid warns that it is deprecated but accepts it).
std::optional<double> parse_speed(std::string_view text);

/// Bytes per second. Units: Bps (bytes) and bps (bits, 8 bps = 1 Bps), each with decimal prefixes
/// k M G T P E Z Y (kBps, Gbps: powers of 1000; lower-case k as SimGrid spells it, "KBps" is not a
/// unit) or binary ones Ki Mi Gi Ti Pi Ei Zi Yi (GiBps, Kibps: powers of 1024). A plain number is B/s.
std::optional<double> parse_bandwidth(std::string_view text);

/// Bytes (SimGrid's xbt_parse_get_size, as for a disk's size). Units: B (bytes) and b (bits, 8 b = 1 B),
/// each with decimal prefixes k M G T P E Z Y (GB: 1e9) or binary ones Ki … Yi (GiB: 2^30). A plain
/// number is bytes ("1e10").
std::optional<double> parse_size(std::string_view text);

/// Seconds. Units: w d h m s ms us ns ps (no other prefixes). A plain number is seconds.
std::optional<double> parse_time(std::string_view text);

/// "312Tf": the largest decimal unit in which the value is at least 1.
std::string format_speed(double flops);
/// "25GBps", "2.4TBps": bytes with decimal prefixes, as format_speed.
std::string format_bandwidth(double bytes_per_second);
/// "1us", "500ns", "0s": the largest of s, ms, us, ns, ps in which the value is at least 1.
std::string format_time(double seconds);

}  // namespace pipegrid::platform
