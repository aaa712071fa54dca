#include "sim/cli/platform_perturb.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <memory>

#include "common/exit_codes.h"
#include "common/input_error.h"
#include "sim/platform/perturb.h"

namespace pipegrid::cli {

namespace {

struct PerturbArgs {
  std::string file, out;
  std::vector<std::string> slow_gpus, degraded_links, failures;
};

int run_perturb(const PerturbArgs& args) {
  using Kind = platform::Perturbation::Kind;
  if (args.out.empty()) throw InputError("platform perturb: --out DIR is required (DIR/platform.xml and its profiles)");
  std::vector<platform::Perturbation> perturbations;
  for (const auto& [kind, texts] : {std::pair{Kind::SlowGpu, &args.slow_gpus}, std::pair{Kind::DegradeLink, &args.degraded_links},
                                    std::pair{Kind::Fail, &args.failures}})
    for (const std::string& text : *texts) perturbations.push_back(platform::parse_perturbation(kind, text));
  const platform::PerturbedPlatform perturbed = platform::perturb_platform(args.file, perturbations);
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(args.out, error);
  if (error) throw InputError(fmt::format("--out {}: cannot create the directory: {}", args.out, error.message()));
  // Profiles are named relative to the platform file, where SimGrid looks for them.
  for (const auto& [name, content] : perturbed.files) {
    const fs::path path = fs::path(args.out) / name;
    fs::create_directories(path.parent_path(), error);
    std::ofstream(path, std::ios::binary) << content;
  }
  std::ofstream(fs::path(args.out) / "platform.xml", std::ios::binary) << perturbed.xml;
  for (const std::string& note : perturbed.notes) std::cout << note << '\n';
  std::cout << fmt::format("wrote {}/platform.xml and {} profile file{} beside it\n", args.out, perturbed.files.size(),
                           perturbed.files.size() == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace

void add_perturb(CLI::App& platform, std::function<int()>& run) {
  CLI::App* perturb = platform.add_subcommand(
      "perturb", "Write a platform file with SimGrid profiles: a GPU slowed, a link degraded, a host or link failing");
  auto args = std::make_shared<PerturbArgs>();
  perturb->add_option("file", args->file, "a SimGrid platform file (DTD 4.1)")->required();
  perturb->add_option("--slow-gpu", args->slow_gpus, "HOST=F@T: the GPU at F (0 < F <= 1) of its speed from T s on")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  perturb->add_option("--degrade-link", args->degraded_links, "LINK=F@T: the link at F (0 < F <= 1) of its bandwidth from T s on")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  perturb->add_option("--fail", args->failures, "NAME@T or NAME@T..T2: the host or link off from T s (on again at T2)")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  perturb->add_option("--out", args->out, "DIR: writes DIR/platform.xml and the profile files beside it");
  perturb->callback([&run, args] { run = [args] { return run_perturb(*args); }; });
}

}  // namespace pipegrid::cli
