// Fuzzes experiment files (sim/input/experiment_file.h): parse_toml (toml::parse behind pipegrid's screen
// of what toml++ 3.3.0 cannot read), then read_experiment. InputError, for TOML syntax too, is the
// expected rejection. What read_experiment
// accepts must survive the round trips a sweep puts it through: experiment_table, read back, gives
// the same options and the same canonical text (the configuration's identity), and so does
// experiment_text (the TOML text the sweep runner writes as each configuration's experiment.toml)
// parsed again.
#include <cstdint>
#include <sstream>
#include <string>

#include "common/input_error.h"
#include "fuzz_support.h"
#include "sim/input/experiment_file.h"

using namespace pipegrid;
using namespace pipegrid::input;

namespace {

void check_same(const Experiment& read, const Experiment& again, const std::string& how) {
  fuzz::check(
      again.values.canonical_text() == read.values.canonical_text(),
      how + ": the canonical text differs:\n" + read.values.canonical_text() + "---\n" + again.values.canonical_text());
  const auto given = read.values.given(), given_again = again.values.given();
  bool same = given.size() == given_again.size();
  for (std::size_t i = 0; same && i < given.size(); ++i)
    same = given[i].first == given_again[i].first && *given[i].second == *given_again[i].second;
  fuzz::check(same, how + ": the options given differ");
}

Experiment read_back(const toml::table& table, const std::string& how) {
  try {
    return read_experiment(table, how);
  } catch (const InputError& e) {
    std::ostringstream text;
    text << table;
    fuzz::fail(how + " is refused: " + e.what() + "\n" + text.str());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  toml::table table;
  try {
    table = parse_toml(fuzz::text_of(data, size), "exp.toml");
  } catch (const InputError& e) {
    fuzz::rejected(e.what());
    return 0;
  }
  Experiment experiment;
  try {
    experiment = read_experiment(table, "exp.toml");
  } catch (const InputError& e) {
    fuzz::rejected(e.what());
    return 0;
  }
  fuzz::accepted(experiment.values.canonical_text());
  const toml::table written = experiment_table(experiment);
  check_same(experiment, read_back(written, "experiment_table"), "experiment_table");

  const std::string text = experiment_text(experiment);
  toml::table parsed;
  try {
    parsed = parse_toml(text, "written.toml");
  } catch (const InputError& e) {
    fuzz::fail(std::string("experiment_text does not parse: ") + e.what() + "\n" + text);
  }
  check_same(experiment, read_back(parsed, "experiment_text"), "experiment_text");
  return 0;
}
