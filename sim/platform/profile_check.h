// SimGrid's time-varying profiles (a link's bandwidth_file or latency_file, a <trace>), checked as
// SimGrid 3.32 reads them (src/kernel/resource/profile/ProfileBuilder.cpp) before SimGrid sees them:
// a malformed line, dates out of order or an impossible loop are an abort inside SimGrid, and a zero
// bandwidth is silently ignored by a transfer already under way.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipegrid::platform {

/// What a profile's values are.
enum class ProfileKind {
  Bandwidth,  // bytes/s, positive
  Latency,    // seconds, not negative
  Speed,      // a factor of a host's peak speed, positive
  State,      // 1 on, 0 off
  Any,        // a <trace> not connected to anything yet: finite values
};

/// The rule the profile's text breaks, as "line N: …" (or "…" for the whole file), or "" when SimGrid
/// reads it as pipegrid means it. One "DATE VALUE" pair per line, dates absolute, not negative and
/// non-decreasing; blank lines and lines starting with # or % skipped; `PERIODICITY P` (P at least the
/// last date) or `LOOPAFTER D` (D not negative), not both. Stochastic profiles are refused: SimGrid
/// draws them from its own random stream, which pipegrid's results would then depend on.
std::string profile_rule(std::string_view text, ProfileKind kind);

/// Whether a checked profile repeats: SimGrid 3.32 loops it on a PERIODICITY above 0 or any
/// LOOPAFTER (ProfileBuilder.cpp, LegacyUpdateCb).
bool profile_repeats(std::string_view text);

/// The dates at which a checked state profile turns its resource on (value > 0), in order; its first
/// pass only (see profile_repeats).
std::vector<double> state_on_dates(std::string_view text);

/// The smallest value of a checked profile's DATE VALUE lines, nullopt when it has none: the least a
/// bandwidth or speed profile gives its resource.
std::optional<double> least_value(std::string_view text);

/// Where SimGrid 3.32 opens a profile named `name` in platform file `platform_path`: the working
/// directory first, then the platform file's directory; nullopt when neither has it. An absolute name
/// SimGrid 3.32 cannot open at all (its surf_ifsopen reopens the stream): the caller refuses it.
std::optional<std::string> locate_profile(const std::string& name, const std::string& platform_path);

}  // namespace pipegrid::platform
