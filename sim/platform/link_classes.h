// Links grouped by what they are, read from their names' suffix (names.h): how `platform info` shows
// thousands of links in five lines, and how a hand-edited link stands out.
#pragma once

#include <string>
#include <vector>

#include "sim/platform/platform_facts.h"

namespace pipegrid::platform {

/// The links whose name ends in one suffix. `typical` holds the most common (bandwidth, latency,
/// sharing policy) among them (the first in the file on a tie); `unusual` the links that differ.
struct LinkClass {
  std::string name;  // nvlink, nvswitch, pcie, ib, up, or other
  std::size_t count = 0;
  LinkFacts typical;
  std::vector<const LinkFacts*> unusual;  // in file order
};

/// The classes present in `facts`, in the order nvlink, nvswitch, pcie, ib, up, other.
std::vector<LinkClass> link_classes(const PlatformFacts& facts);

}  // namespace pipegrid::platform
