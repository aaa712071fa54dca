#include "sim/cli/outputs_command.h"

#include <fmt/format.h>
#include <iostream>

#include "common/exit_codes.h"
#include "sim/cli/subcommand.h"
#include "sim/output/output_files.h"

namespace pipegrid::cli {

void write_outputs_markdown(std::ostream& out) {
  out << "# pipegrid's output files\n\n"
         "Every file pipegrid writes, as `pipegrid outputs` prints it from the output stage's one list\n"
         "(sim/output/output_files.cc), which the writers, `pipegrid report` and the folder's clean-up all read.\n"
         "\"A run's\": simulate, schedule, check and run write it into `--out`, and a new run there first removes\n"
         "the one an earlier run left. \"Report\": `pipegrid report` draws its page from it. The format's version\n"
         "goes up when a column or key changes meaning or goes. What the keys and columns mean: docs/outputs.md.\n\n"
         "| file | what it holds | a run's | report | format |\n|---|---|---|---|---|\n";
  for (const output::OutputFileSpec& file : output::output_files())
    out << fmt::format("| `{}` | {} | {} | {} | {} |\n", file.name, file.what, file.run_writes ? "yes" : "",
                       file.report_reads ? "yes" : "", file.format_version);
  out << "\n## Columns\n";
  for (const output::OutputFileSpec& file : output::output_files()) {
    if (file.columns.empty()) continue;
    out << fmt::format("\n`{}`: ", file.name);
    for (std::size_t i = 0; i < file.columns.size(); ++i)
      out << (i ? ", " : "") << '`' << file.columns[i] << '`' << (file.id == output::OutputFile::Results && i == 0
                                                                      ? ", then one column per axis of the sweep"
                                                                      : "");
    out << '\n';
  }
}

void add_outputs_command(CLI::App& app, std::function<int()>& run) {
  run_when_chosen(*app.add_subcommand("outputs", "Print every file pipegrid writes and its columns (docs/output-files.md)"),
                  run, [] {
                    write_outputs_markdown(std::cout);
                    return kExitOk;
                  });
}

}  // namespace pipegrid::cli
