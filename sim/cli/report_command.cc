#include "sim/cli/report_command.h"

#include <iostream>

#include "common/exit_codes.h"
#include "common/input_error.h"
#include "common/log.h"
#include "sim/cli/subcommand.h"
#include "sim/report/report.h"

namespace pipegrid::cli {

void add_report_command(CLI::App& app, std::function<int()>& run) {
  add_subcommand(
      app, run, input::Command::Report, "report",
      "Write DIR/report.html: a run's inputs, summary, Gantt chart, deadlock, links and lesson, one offline page",
      [](const input::OptionValues& values) {
        values.check_required();
        const std::string path = report::write_report(values.text("dir"));
        std::cout << "wrote " << path << '\n';
        return kExitOk;
      });
}

void check_report_request(const input::OptionValues& values) {
  if (!values.flag("report")) return;
  if (!values.has("out")) throw InputError("--report: needs an output directory (--out DIR or [output] out)");
  if (values.command() == input::Command::Schedule && values.text("schedule") == "all")
    throw InputError("--report: reports one run; --schedule all compares many (choose one with --schedule NAME)");
}

void report_after_run(const input::OptionValues& values, int code) {
  if (!values.flag("report") || (code != kExitOk && code != kExitDeadlock)) return;
  try {
    const std::string path = report::write_report(values.text("out"));
    std::cerr << "wrote " << path << '\n';
  } catch (const InputError& e) {
    log::cli().warn("--report: {}", e.what());
  }
}

}  // namespace pipegrid::cli
