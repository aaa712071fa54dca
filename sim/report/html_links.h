// The links table of a simulation (links.csv) as HTML: the busiest links first, at most kTopLinks.
#pragma once

#include <cstddef>
#include <string>

namespace pipegrid::report {

inline constexpr std::size_t kTopLinks = 12;

/// links.csv at `path` (named `name` in errors), sorted by peak utilisation, then utilisation while
/// busy, then bytes, then busy time,
/// the first `top` rows, with a line saying how many of how many are shown. InputError if malformed.
std::string links_html(const std::string& path, const std::string& name, std::size_t top = kTopLinks);

}  // namespace pipegrid::report
