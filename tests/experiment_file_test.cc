// Experiment files: every option has a key, keys become flags, and mistakes are named by key and line.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "sim/cli/app.h"
#include "sim/sweep/experiment_file.h"
#include "sim/sweep/sweep_spec.h"
#include "error_of.h"

namespace pipegrid::sweep {
namespace {

toml::table parse(const std::string& text) { return toml::parse(std::string_view(text), std::string_view("exp.toml")); }

std::string error_of(const std::string& text) {
  CLI::App app;
  std::function<int()> run;
  cli::build_app(app, run);
  return test_support::error_of([&] { experiment_command(parse(text), "exp.toml", app); });
}

TEST(ExperimentFile, EveryOptionOfSimulateAndScheduleHasAKey) {
  CLI::App app;
  std::function<int()> run;
  cli::build_app(app, run);
  std::set<std::string> flags;
  for (const ExperimentKey& k : experiment_keys()) flags.insert(k.flag);
  for (const char* command : {"simulate", "schedule"})
    for (const CLI::Option* option : app.get_subcommand(command)->get_options()) {
      const std::string name = option->get_name();
      if (name == "--help") continue;
      EXPECT_TRUE(flags.contains(name)) << command << " " << name << " has no experiment key";
    }
}

TEST(ExperimentFile, KeysBecomeFlags) {
  CLI::App app;
  std::function<int()> run;
  cli::build_app(app, run);
  const ExperimentCommand c = experiment_command(parse(R"(
[platform]
file = "platforms/dgx-a100-2node.xml"
[parallel]
pp = 4
[model]
name = "gpt-175b"
compute_efficiency = 1
scatter_gather = true
flash_attention = false
[sim]
schedule = "zb-h1"
)"),
                                                 "exp.toml", app);
  EXPECT_EQ(c.command, "simulate");
  const std::vector<std::string> expected = {"--compute-efficiency", "1", "--model", "gpt-175b", "--scatter-gather",
                                             "--pp", "4", "--platform", "platforms/dgx-a100-2node.xml",
                                             "--schedule", "zb-h1"};
  EXPECT_EQ(c.args, expected);  // sections and keys in toml++'s sorted order; a false flag is left out
}

TEST(ExperimentFile, MistakesAreNamedByKeyAndLine) {
  EXPECT_EQ(error_of("[parallel]\npp = 4\ntpx = 2\n"), "exp.toml:3:7: [parallel] tpx: unknown key");
  EXPECT_EQ(error_of("[parallel]\npp = \"four\"\n"), "exp.toml:2:6: [parallel] pp: expected an integer, got a string");
  EXPECT_EQ(error_of("[model]\ncompute_efficiency = \"high\"\n"),
            "exp.toml:2:22: [model] compute_efficiency: expected a number, got a string");
  EXPECT_EQ(error_of("[model]\nscatter_gather = 1\n"), "exp.toml:2:18: [model] scatter_gather: expected a boolean, got an integer");
  EXPECT_EQ(error_of("[modle]\nlayers = 2\n"), "exp.toml:2:10: [modle] layers: unknown key");
  EXPECT_EQ(error_of("[sim]\ncommand = \"schedule\"\n[platform]\nfile = \"x.xml\"\n"),
            "exp.toml:4:8: [platform] file: `pipegrid schedule` has no --platform");
  EXPECT_EQ(error_of("[sim]\ncommand = \"train\"\n"), "exp.toml:2:11: [sim] command: expected simulate or schedule, got train");
}

TEST(ExperimentFile, StableHashIsFnv1a) {
  // FNV-1a 64 of "" and of "a", the published test vectors.
  EXPECT_EQ(stable_hash(""), "cbf29ce484222325");
  EXPECT_EQ(stable_hash("a"), "af63dc4c8601ec8c");
}

}  // namespace
}  // namespace pipegrid::sweep
