// pipegrid: a discrete-event simulator of pipeline-parallel LLM training. This file only hands the
// command line to the app (sim/cli/app.h), which maps failures onto exit codes (DESIGN.md, "Errors").
#include <string>
#include <vector>

#include "sim/cli/app.h"

int main(int argc, char** argv) {
  return pipegrid::cli::run_command_line(std::vector<std::string>(argv + 1, argv + argc));
}
