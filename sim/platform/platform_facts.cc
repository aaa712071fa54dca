#include "sim/platform/platform_facts.h"

#include <algorithm>

namespace pipegrid::platform {

const LinkFacts* PlatformFacts::find_link(std::string_view name) const {
  const auto it = link_index.find(std::string(name));
  return it == link_index.end() ? nullptr : &links[it->second];
}

const GpuHost* PlatformFacts::find_gpu(std::string_view name) const {
  const auto it = gpu_index.find(std::string(name));
  return it == gpu_index.end() ? nullptr : &gpus[it->second];
}

bool PlatformFacts::has_profile(std::string_view resource, ProfileOf of) const {
  return std::any_of(resource_profiles.begin(), resource_profiles.end(),
                     [&](const ResourceProfile& p) { return p.resource == resource && p.of == of; });
}

bool PlatformFacts::has_host(std::string_view name) const {
  return find_gpu(name) || std::find(other_hosts.begin(), other_hosts.end(), name) != other_hosts.end();
}

}  // namespace pipegrid::platform
