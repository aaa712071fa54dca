// `pipegrid platform perturb`: a platform file edited for the common what-ifs — a GPU slowed, a link
// degraded, a host or link failing — written as SimGrid's own profile files (speed_file,
// bandwidth_file, state_file) beside a copy of the XML, so that SimGrid and pipegrid read them as any
// hand-written profile.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pipegrid::platform {

struct Perturbation {
  enum class Kind { SlowGpu, DegradeLink, Fail };
  Kind kind = Kind::SlowGpu;
  std::string resource;  // a GPU host (SlowGpu), a link (DegradeLink), a host or a link (Fail)
  double factor = 1;     // of the declared speed or bandwidth, in (0, 1]
  double from = 0;       // seconds
  std::optional<double> until;  // Fail: back on at this date
};

/// "HOST=0.9@T" (SlowGpu), "LINK=0.5@T" (DegradeLink), "NAME@T" or "NAME@T..T2" (Fail); T in seconds.
/// InputError naming the flag and the rule on anything else.
Perturbation parse_perturbation(Perturbation::Kind kind, std::string_view text);

struct PerturbedPlatform {
  std::string xml;
  /// Files to write beside it, by the relative name the XML gives them: the new profiles and a copy of
  /// each profile the platform already named (so the copy finds them as the original did).
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<std::string> notes;  // one line per perturbation, what it does
};

/// Applies the perturbations to the platform file at `path`. InputError for an unknown host or link,
/// a resource already carrying a profile of that kind, or two perturbations of one kind on one
/// resource. A SPLITDUPLEX link to fail becomes the two SHARED links NAME_UP and NAME_DOWN SimGrid makes
/// of it, each with the state_file (SimGrid 3.32 aborts on a SPLITDUPLEX link's state profile) and a
/// copy of its bandwidth profile, if any (SimGrid 3.32 reads a profile file for one resource only); its
/// symmetrical routes are written out in both directions. A link is degraded before it fails, whatever
/// the order of the perturbations.
PerturbedPlatform perturb_platform(const std::string& path, const std::vector<Perturbation>& perturbations);

}  // namespace pipegrid::platform
