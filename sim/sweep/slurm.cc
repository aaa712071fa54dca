#include "sim/sweep/slurm.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <ostream>
#include <map>

#include "common/input_error.h"
#include "sim/output/atomic_file.h"
#include "sim/output/folder_lock.h"
#include "sim/output/output_files.h"
#include "sim/output/run_folder.h"
#include "sim/sweep/results_csv.h"

namespace pipegrid::sweep {

namespace fs = std::filesystem;

namespace {

// Single-quoted for the shell.
std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A path in an #SBATCH directive: double-quoted, because sbatch splits directives at blanks, and '%'
// doubled, because Slurm reads %A, %a, … in file names as patterns.
std::string sbatch_path(const fs::path& path) {
  const std::string text = path.string();
  if (text.find_first_of("\"\n") != std::string::npos)
    throw InputError(fmt::format("--out {}: a Slurm sweep's path cannot contain '\"' or a newline", text));
  std::string out;
  for (char c : text) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
}

}  // namespace

std::string submit_array(const std::string& sweep_file, const SweepOptions& options, const SlurmOptions& slurm) {
  if (slurm.array_size < 1) throw InputError(fmt::format("--array-size {}: must be at least 1", slurm.array_size));
  const fs::path out = fs::absolute(options.out);
  fs::create_directories(out);
  const fs::path script = out / "sweep.sbatch";
  {
    // Not while a sweep or an earlier array's shards write there; released before sbatch, whose tasks
    // take it themselves, shared.
    const output::FolderLock folder(options.out);
    output::AtomicFile file(script.string());
    std::ostream& s = file.stream();
    s << "#!/bin/bash\n"
      << "# pipegrid sweep as a Slurm job array: task i runs shard i of " << slurm.array_size << ".\n"
      << "#SBATCH --job-name=pipegrid-sweep\n"
      << fmt::format("#SBATCH --array=0-{}\n", slurm.array_size - 1)
      << fmt::format("#SBATCH --output=\"{}/slurm-%A_%a.out\"\n", sbatch_path(out))
      // A configuration's identity holds its paths relative to the working directory
      // (relative_paths.h): the tasks run where the sweep was submitted, so their ids are a local run's,
      // also when the script is resubmitted by hand from elsewhere.
      << fmt::format("#SBATCH --chdir=\"{}\"\n", sbatch_path(fs::current_path()))
      << fmt::format("#SBATCH --cpus-per-task={}\n", slurm.jobs_per_task);
    if (!slurm.partition.empty()) s << fmt::format("#SBATCH --partition={}\n", slurm.partition);
    s << fmt::format("exec {} sweep {} --out {} --jobs {} --shard \"${{SLURM_ARRAY_TASK_ID}}/{}\"", shell_quote(options.pipegrid),
                     shell_quote(fs::absolute(sweep_file).string()), shell_quote(out.string()), slurm.jobs_per_task,
                     slurm.array_size);
    if (options.timeout_seconds > 0) s << fmt::format(" --timeout {}", options.timeout_seconds);
    if (options.force) s << " --force";
    if (options.log_level != "warn") s << " --log-level " << options.log_level;
    s << '\n';
    file.commit();
  }
  const std::string command = "sbatch --parsable " + shell_quote(script.string()) + " 2>&1";
  std::FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw InputError("--slurm: cannot run sbatch");
  std::string output;
  std::array<char, 256> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe)) output += buffer.data();
  const int status = pclose(pipe);
  const std::string first = output.substr(0, output.find('\n'));
  if (status != 0)
    throw InputError(fmt::format("--slurm: sbatch refused {}: {}", script.string(), first.empty() ? "no output" : first));
  return first.substr(0, first.find(';'));  // --parsable prints "jobid[;cluster]"
}

std::size_t merge_shards(const SweepSpec& spec, const std::string& out) {
  output::make_output_dir(out);
  const output::FolderLock folder(out);  // not beside shards still running, nor another merge
  std::map<std::string, std::size_t> order;
  for (const Configuration& c : spec.configurations) order[c.id] = c.index;
  std::map<std::size_t, ResultRow> rows;
  const fs::path shards = fs::path(out) / "shards";
  if (fs::exists(shards))
    for (const auto& entry : fs::directory_iterator(shards))
      for (ResultRow& row : read_results(output::output_path(entry.path().string(), output::OutputFile::Results), spec.axes))
        if (const auto it = order.find(row.id); it != order.end()) rows[it->second] = std::move(row);
  std::vector<ResultRow> sorted;
  for (auto& [index, row] : rows) sorted.push_back(std::move(row));
  write_results(output::output_path(out, output::OutputFile::Results), spec.axes, sorted);
  return sorted.size();
}

}  // namespace pipegrid::sweep
