#include "sim/cli/platform_perturb.h"
#include "sim/output/atomic_file.h"
#include "sim/output/output_files.h"
#include "sim/output/output_folder.h"

#include <filesystem>
#include <fmt/format.h>
#include <iostream>

#include "common/exit_codes.h"
#include "common/input_error.h"
#include "sim/cli/subcommand.h"
#include "sim/platform/perturb.h"
#include "sim/platform/platform_reader.h"

namespace pipegrid::cli {

namespace {

int run_perturb(const input::OptionValues& v) {
  using Kind = platform::Perturbation::Kind;
  v.check_required();
  std::vector<platform::Perturbation> perturbations;
  for (const auto& [kind, flag] : {std::pair{Kind::SlowGpu, "slow-gpu"}, std::pair{Kind::DegradeLink, "degrade-link"},
                                   std::pair{Kind::Fail, "fail"}})
    for (const std::string& text : v.names(flag)) perturbations.push_back(platform::parse_perturbation(kind, text));
  const std::string& out = v.text("out");
  const platform::PerturbedPlatform perturbed = platform::perturb_platform(v.text("file"), perturbations);
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(out, error);
  if (error) throw InputError(fmt::format("--out {}: cannot create the directory: {}", out, error.message()));
  // The platform and the profiles it names (copied beside the new one) are never among what it writes.
  const std::string& file = v.text("file");
  std::vector<std::string> inputs = {file};
  for (const std::string& profile : platform::read_platform(file).profile_files) inputs.push_back(profile);
  std::vector<std::string> outputs = {output::output_path(out, output::OutputFile::PlatformXml)};
  for (const auto& [name, content] : perturbed.files) outputs.push_back((fs::path(out) / name).string());
  output::refuse_inputs_among_outputs(inputs, outputs, out);
  // Profiles are named relative to the platform file, where SimGrid looks for them. Each file whole or
  // not at all (atomic_file.h), the platform last: a platform.xml there has its profiles.
  for (const auto& [name, content] : perturbed.files) {
    const fs::path path = fs::path(out) / name;
    fs::create_directories(path.parent_path(), error);
    output::write_atomically(path.string(), content);
  }
  output::write_atomically(outputs.front(), perturbed.xml);
  for (const std::string& note : perturbed.notes) std::cout << note << '\n';
  std::cout << fmt::format("wrote {}/platform.xml and {} profile file{} beside it\n", out, perturbed.files.size(),
                           perturbed.files.size() == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace

void add_perturb(CLI::App& platform, std::function<int()>& run) {
  add_subcommand(platform, run, input::Command::PlatformPerturb, "perturb",
                 "Write a platform file with SimGrid profiles: a GPU slowed, a link degraded, a host or link failing",
                 run_perturb);
}

}  // namespace pipegrid::cli
