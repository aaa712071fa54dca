// The <config> settings of a platform file, checked against what SimGrid 3.32 accepts before SimGrid
// reads them: a key SimGrid does not know, or a value of the wrong form, would end in SimGrid's own
// abort ("Model 'cm02' is invalid!") or exception, far from the file and the line.
#pragma once

#include <string>
#include <string_view>

namespace pipegrid::platform {

/// The rule `key` = `value` breaks, or "" when SimGrid 3.32 takes it and pipegrid can honour it.
/// Keys and types are SimGrid's (`--help` of any SimGrid 3.32 program); booleans are yes, on, true, 1,
/// no, off, false, 0; numbers are whole (SimGrid reads them with strtod / strtol and no unit); the
/// models, optimisations and solvers are one of SimGrid's names, spelled as SimGrid spells them.
/// Numbers are range-checked where SimGrid would abort, hang or run something else outside the range
/// (precisions, factors, the concurrency limit: platforms/README.md lists them).
/// Settings that SimGrid takes but that would make a pipegrid run mean something else (tracing,
/// plugins, the chaos monkey, SMPI, the model checker, contexts, ns-3) are refused with the reason.
std::string config_rule(std::string_view key, std::string_view value);

}  // namespace pipegrid::platform
