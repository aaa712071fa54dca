// What a report says of a folder whose run did not finish, or did not say whether it did
// (sim/output/run_status.h): a section at the top of the page and one warning line on stderr, so that
// a run stopped half-way is never read as a finished one.
#pragma once

#include <string>

#include "sim/report/run_files.h"

namespace pipegrid::report {

/// The warning for `files`, or "" when its status.json says the run ended by itself with a result —
/// complete, deadlock, platform-failure — or it holds no result to mistake. A folder with results and
/// no status.json (written before pipegrid kept one) is drawn as it is, with the warning that nobody
/// can tell whether its run finished.
std::string status_warning(const RunFiles& files);

/// The warning as the page's first section, headed at `level`; "" without one.
std::string status_warning_html(const std::string& warning, int level);

}  // namespace pipegrid::report
