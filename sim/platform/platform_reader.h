// Reads a SimGrid platform file and checks it before SimGrid loads it, so that a mistake in a
// hand-edited file is one line naming the file, the line and the rule (exit code 2) rather than a
// SimGrid abort.
#pragma once

#include <string>

#include "sim/platform/platform_facts.h"

namespace pipegrid::platform {

/// Parses `path` with pugixml and returns its facts: standard SimGrid XML and <config> props as SimGrid
/// 3.32 reads them (zones of any routing, clusters as cluster_reader.h expands them, quantities as
/// units.h reads them, profiles as profile_check.h does), GPUs read or inferred (gpu_inference.h).
/// Throws InputError, one line `FILE:LINE: rule` (LINE the element at fault's, or its <prop>'s or
/// <link_ctn>'s; `FILE: rule` for the whole file). The rules, with their messages: platforms/README.md,
/// "What the reader refuses".
PlatformFacts read_platform(const std::string& path);
/// The same for a file's text already read (`path` names it in errors and locates its profiles).
PlatformFacts read_platform_text(const std::string& path, std::string text);

}  // namespace pipegrid::platform
