// Fuzzes sweep files (sim/sweep/sweep_spec.h): the input is written to sweep.toml in a scratch
// directory and read with read_sweep, which reads a `base = "FILE"` relative to it. The directory
// holds three bases: experiment.toml (a simulate job), job.toml (another) and schedule.toml (a
// schedule command). InputError is the expected rejection. What read_sweep accepts must hold at
// least one configuration, numbered in order, each with one value per axis and a distinct id, and
// each configuration's experiment must read back the same from the experiment.toml the sweep runner
// writes for it (experiment_text).
#include <cstdint>
#include <set>
#include <string>

#include "common/input_error.h"
#include "fuzz_support.h"
#include "sim/sweep/sweep_spec.h"

using namespace pipegrid;

namespace {

const std::string& sweep_path() {
  static const std::string path = [] {
    fuzz::write_scratch("experiment.toml", R"([platform]
file = "platforms/dgx-a100-2node.xml"
[parallel]
tp = 2
pp = 4
dp = 2
microbatches = 16
[model]
layers = 16
hidden = 8192
heads = 64
seq = 2048
vocab = 51200
compute_efficiency = 0.6
[sim]
schedule = "1f1b"
p2p = "async"
[output]
trace = "pipeline"
)");
    fuzz::write_scratch("job.toml", R"([platform]
file = "platforms/h800-256node.xml"
[parallel]
pp = 8
dp = 8
microbatches = 32
[sim]
schedule = "1f1b"
[output]
trace = "off"
)");
    fuzz::write_scratch("schedule.toml", R"([sim]
command = "schedule"
schedule = "1f1b"
time_f = 1
time_b = 2
[parallel]
pp = 4
microbatches = 8
[output]
format = "json"
)");
    return fuzz::scratch_dir() + "/sweep.toml";
  }();
  return path;
}

void check_spec(const sweep::SweepSpec& spec) {
  fuzz::check(!spec.configurations.empty(), "a sweep without configurations");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < spec.configurations.size(); ++i) {
    const sweep::Configuration& c = spec.configurations[i];
    fuzz::check(c.index == i, "configurations out of order");
    fuzz::check(c.values.size() == spec.axes.size(), "a configuration without one value per axis");
    fuzz::check(ids.insert(c.id).second, "two configurations with id " + c.id);
    if (i >= 64) continue;  // the round trip below for the first 64 only: the rest are alike
    const std::string text = input::experiment_text(c.experiment);
    try {
      const input::Experiment again = input::read_experiment(input::parse_toml(text, "written.toml"), "written.toml");
      fuzz::check(again.values.canonical_text() == c.experiment.values.canonical_text(),
                  "configuration " + std::to_string(i) + " reads back as another experiment:\n" + text);
    } catch (const InputError& e) {
      fuzz::fail("configuration " + std::to_string(i) + ": its experiment.toml is refused: " + e.what() + "\n" + text);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = sweep_path();
  fuzz::write_scratch("sweep.toml", fuzz::text_of(data, size));
  try {
    const sweep::SweepSpec spec = sweep::read_sweep(path);
    check_spec(spec);
    fuzz::accepted(std::to_string(spec.configurations.size()) + " configurations");
  } catch (const InputError& e) {
    fuzz::rejected(e.what());
  }
  return 0;
}
