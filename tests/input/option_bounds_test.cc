// Every numeric option of simulate and schedule at the edges of its range, on a small job: at a bound
// the run either finishes or is refused in one line (exit 0, 2 or 3 — never 70, a signal or a hang);
// past a bound it is refused, naming the option and the rule. The ranges are the schema's; the job is
// small enough that even its extremes run in milliseconds.
#include <gtest/gtest.h>

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command_runner.h"
#include "sim/input/option_schema.h"

namespace pipegrid {
namespace {

using input::Command;
using input::OptionSpec;
using input::ValueType;
using test_support::run_pipegrid;

const std::string kStar = PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml";

bool is_explicit_cost(const OptionSpec& o) { return o.flag.starts_with("time-") || o.flag == "p2p-bytes"; }
bool is_moe(const OptionSpec& o) {
  for (const char* flag : {"experts", "top-k", "shared-experts", "expert-hidden", "first-dense-layers",
                           "max-nodes-per-token", "dispatch-bytes", "combine-bytes", "ep"})
    if (o.flag == flag) return true;
  return false;
}

// The job an option is tried on: explicit times, a tiny dense model or a tiny MoE model.
std::string base_job(Command command, const OptionSpec& o) {
  if (command == Command::Schedule) return "schedule --schedule 1f1b --pp 2 --microbatches 4 --format json";
  const std::string job = "simulate --platform " + kStar + " --schedule 1f1b --pp 2 --microbatches 4 --format json";
  if (is_explicit_cost(o)) return job;
  const std::string model = " --layers 2 --hidden 64 --heads 4 --seq 16 --vocab 128";
  return job + model + (is_moe(o) ? " --dp 2 --experts 4 --top-k 2 --expert-hidden 32" : "");
}

std::string number_text(const OptionSpec& o, double value) {
  return o.type == ValueType::Integer ? fmt::format("{:.0f}", value) : fmt::format("{}", value);
}

struct Case {
  Command command;
  const OptionSpec* option;
};

std::vector<Case> numeric_options() {
  std::vector<Case> cases;
  for (Command command : {Command::Simulate, Command::Schedule})
    for (const OptionSpec* o : input::options_of(command))
      if (o->type == ValueType::Integer || o->type == ValueType::Number) cases.push_back({command, o});
  return cases;
}

void expect_one_outcome(const std::string& args) {
  const auto r = run_pipegrid(args);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 2 || r.exit_code == 3) << args << "\nexit " << r.exit_code << ": " << r.err;
  if (r.exit_code == 0) {
    EXPECT_TRUE(nlohmann::json::accept(r.out)) << args;
  } else if (r.exit_code == 2) {
    EXPECT_TRUE(r.err.starts_with("pipegrid: error: ")) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
  } else {
    EXPECT_TRUE(r.err.starts_with("deadlock")) << args << "\n" << r.err;
  }
}

TEST(OptionBounds, EveryNumericOptionAtItsBoundsRunsOrIsRefusedInOneLine) {
  const std::vector<Case> cases = numeric_options();
  ASSERT_GT(cases.size(), 30u);
  for (const auto& [command, o] : cases) {
    const input::Bounds& b = o->bounds;
    for (double edge : {b.min, b.max}) {
      if (!std::isfinite(edge)) continue;
      // An open bound is not in the range: the nearest value inside it is.
      double value = edge;
      if (edge == b.min && b.min_open) value = std::nextafter(edge, INFINITY);
      if (edge == b.max && b.max_open) value = std::nextafter(edge, -INFINITY);
      expect_one_outcome(base_job(command, *o) + " " + o->flag_name() + " " + number_text(*o, value));
    }
  }
}

TEST(OptionBounds, PastItsBoundsEveryNumericOptionIsRefusedWithItsRule) {
  for (const auto& [command, o] : numeric_options()) {
    const input::Bounds& b = o->bounds;
    const bool integer = o->type == ValueType::Integer;
    if (std::isfinite(b.max) && b.max < 1e300) {
      const double past = integer ? b.max + 1 : b.max * 2 + 1;
      const std::string text = number_text(*o, past);
      const auto r = run_pipegrid(base_job(command, *o) + " " + o->flag_name() + " " + text);
      EXPECT_EQ(r.exit_code, 2) << o->flag_name() << " " << text;
      EXPECT_TRUE(r.err.starts_with("pipegrid: error: " + o->flag_name() + " " + text + ": must ")) << r.err;
    }
    if (std::isfinite(b.min)) {
      const double past = integer ? b.min - 1 : b.min - 1;
      const std::string text = number_text(*o, past);
      const auto r = run_pipegrid(base_job(command, *o) + " " + o->flag_name() + " " + text);
      EXPECT_EQ(r.exit_code, 2) << o->flag_name() << " " << text;
      EXPECT_TRUE(r.err.starts_with("pipegrid: error: " + o->flag_name() + " " + text + ": must ")) << r.err;
    }
    // And nothing is infinite.
    const auto r = run_pipegrid(base_job(command, *o) + " " + o->flag_name() + " inf");
    EXPECT_EQ(r.err, "pipegrid: error: " + o->flag_name() + " inf: " + (integer ? "expected an integer" : "must be a finite number") + "\n");
  }
}

}  // namespace
}  // namespace pipegrid
