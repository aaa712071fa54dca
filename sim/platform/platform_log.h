// What the platform layer logs (common/log.h's `platform` logger) of a platform file it has read and
// checked: at debug how many hosts, links and routes it holds, at trace each host and link.
#pragma once

#include "sim/platform/platform_facts.h"

namespace pipegrid::platform {

void log_platform(const PlatformFacts& facts);

}  // namespace pipegrid::platform
