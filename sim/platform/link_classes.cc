#include "sim/platform/link_classes.h"

#include <map>
#include <tuple>

#include "sim/platform/names.h"

namespace pipegrid::platform {

namespace {

struct Suffix {
  const char* class_name;
  const char* suffix;
};
constexpr Suffix kClasses[] = {{"nvlink", kNvlinkSuffix}, {"nvswitch", kNvswitchSuffix}, {"pcie", kPcieSuffix},
                               {"ib", kIbSuffix},         {"up", kUplinkSuffix}};
constexpr std::size_t kOther = std::size(kClasses);

std::size_t class_of(const std::string& link) {
  for (std::size_t i = 0; i < std::size(kClasses); ++i)
    if (link.ends_with(kClasses[i].suffix)) return i;
  return kOther;
}

using Shape = std::tuple<double, double, std::string>;
Shape shape_of(const LinkFacts& link) { return {link.bandwidth, link.latency, link.sharing_policy}; }

}  // namespace

std::vector<LinkClass> link_classes(const PlatformFacts& facts) {
  std::vector<std::vector<const LinkFacts*>> members(kOther + 1);
  for (const LinkFacts& link : facts.links) members[class_of(link.name)].push_back(&link);
  std::vector<LinkClass> classes;
  for (std::size_t i = 0; i <= kOther; ++i) {
    if (members[i].empty()) continue;
    LinkClass cls;
    cls.name = i == kOther ? "other" : kClasses[i].class_name;
    cls.count = members[i].size();
    std::map<Shape, std::size_t> counts;
    for (const LinkFacts* link : members[i]) ++counts[shape_of(*link)];
    const LinkFacts* typical = members[i].front();
    for (const LinkFacts* link : members[i])
      if (counts[shape_of(*link)] > counts[shape_of(*typical)]) typical = link;
    cls.typical = *typical;
    for (const LinkFacts* link : members[i])
      if (shape_of(*link) != shape_of(*typical)) cls.unusual.push_back(link);
    classes.push_back(std::move(cls));
  }
  return classes;
}

}  // namespace pipegrid::platform
