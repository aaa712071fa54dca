// pipegrid plan as a user runs it: plan.csv's columns and order, best.toml rerun to the plan's digits,
// a second run resuming the simulations, and exit 2 when nothing fits or an axis is unknown.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "command_runner.h"
#include "temp_files.h"

namespace pipegrid {
namespace {

using test_support::fresh_dir;
using test_support::read_file;
using test_support::run_pipegrid;

const std::string kPlan =
    "plan --model gpt-1.7b --preset dgx-a100 --nodes 1 --global-batch 16 --top 3 --jobs 2 "
    "--space schedule=1f1b,interleaved --space recompute=none --space micro-batch=1,2 --space chunks=0,2";

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> fields;
    std::string field;
    std::istringstream cells(line);
    while (std::getline(cells, field, ',')) fields.push_back(field);
    rows.push_back(fields);
  }
  return rows;
}

TEST(PlanCli, TheBestLayoutIsSimulatedAndBestTomlRerunsItToTheDigit) {
  const std::string dir = fresh_dir("plan");
  const auto r = run_pipegrid(kPlan + " --out " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = csv_rows(read_file(dir + "/plan.csv"));
  ASSERT_GE(rows.size(), 4u);
  EXPECT_EQ(read_file(dir + "/plan.csv").substr(0, read_file(dir + "/plan.csv").find('\n')),
            "place,tp,pp,dp,cp,ep,micro_batch,microbatches,schedule,chunks,recompute,sequence_parallel,zero,"
            "peak_memory_bytes,estimated_step_s,simulated_step_s,tflops_per_gpu,mfu,stage,excluded_by");
  // Three simulated, placed 1, 2, 3 by simulated time; then the estimated, by estimate.
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(rows[i][0], std::to_string(i));
    EXPECT_EQ(rows[i][18], "simulated");
  }
  EXPECT_LE(std::stod(rows[1][15]), std::stod(rows[2][15]));
  EXPECT_LE(std::stod(rows[2][15]), std::stod(rows[3][15]));
  EXPECT_EQ(rows[4][18], "estimated");
  // Every row's GPUs are the node's 8, and its micro-batches make the global batch.
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(std::stoi(rows[i][1]) * std::stoi(rows[i][2]) * std::stoi(rows[i][3]), 8);
    EXPECT_EQ(std::stoi(rows[i][3]) * std::stoi(rows[i][6]) * std::stoi(rows[i][7]), 16);
  }
  // The picture of step time against memory is drawn.
  EXPECT_GT(read_file(dir + "/pareto.png").size(), 1000u);
  // best.toml is the first row's experiment: rerun, it gives that row's simulated step to the digit.
  const auto best = run_pipegrid("run " + dir + "/best.toml --format json");
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_EQ(fmt::format("{}", nlohmann::json::parse(best.out)["makespan"].get<double>()), rows[1][15]);

  // A second plan finds its simulations done and writes the same plan.
  const std::string first = read_file(dir + "/plan.csv");
  const auto again = run_pipegrid(kPlan + " --out " + dir);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("plan: simulated 3 layouts (3 already done"), std::string::npos) << again.err;
  EXPECT_EQ(read_file(dir + "/plan.csv"), first);
}

TEST(PlanCli, APlanFileIsReadThroughTheSchemaAndFlagsOverrideIt) {
  const std::string dir = fresh_dir("plan-file");
  {
    std::ofstream toml(dir + "/plan.toml");
    toml << "[model]\nname = \"gpt-1.7b\"\n[platform]\npreset = \"dgx-a100\"\nnodes = 1\n"
            "[plan]\nglobal_batch = 16\ntop = 1\nspace = [\"schedule=1f1b\", \"recompute=none\", \"micro-batch=1\"]\n";
  }
  const auto r = run_pipegrid("plan " + dir + "/plan.toml --gpus 4,8 --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Both cluster sizes enumerated, the best of each simulated (--top 1 a size).
  EXPECT_NE(r.err.find("layouts of 4 GPUs enumerated"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("layouts of 8 GPUs enumerated"), std::string::npos) << r.err;
  const auto rows = csv_rows(read_file(dir + "/out/plan.csv"));
  int simulated = 0;
  for (const auto& row : rows) simulated += row.size() > 18 && row[18] == "simulated";
  EXPECT_EQ(simulated, 2);
  // --also: a layout the estimate ranks low is simulated too, and placed by its simulated step.
  const std::string also =
      "tp=2 pp=1 dp=2 cp=1 ep=1 micro-batch=1 microbatches=8 schedule=1f1b chunks=0 recompute=none "
      "sequence-parallel=on zero=1 grad-overlap=on precision=bf16 placement=tp-dp-pp cp-algo=ring "
      "tp-comm-overlap=off layer-split=balanced";
  const auto with_also = run_pipegrid("plan " + dir + "/plan.toml --gpus 4 --also \"" + also + "\" --out " + dir + "/also");
  ASSERT_EQ(with_also.exit_code, 0) << with_also.err;
  int also_simulated = 0, simulated_with_also = 0;
  for (const auto& row : csv_rows(read_file(dir + "/also/plan.csv"))) {
    also_simulated += row.size() > 18 && row[1] == "2" && row[2] == "1" && row[3] == "2" && row[18] == "simulated";
    simulated_with_also += row.size() > 18 && row[18] == "simulated";
  }
  EXPECT_EQ(also_simulated, 1);
  EXPECT_EQ(simulated_with_also, 2);  // --top 1's, and --also's
  const auto bad = run_pipegrid("plan " + dir + "/plan.toml --space foo=1 --out " + dir + "/out");
  EXPECT_EQ(bad.exit_code, 2);
  std::ofstream(dir + "/bad.toml") << "[plan]\nglobal_batch = 16\nwhat = 1\n";
  const auto unknown = run_pipegrid("plan " + dir + "/bad.toml --out " + dir + "/out");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("[plan] what: unknown key"), std::string::npos) << unknown.err;
  // [plan] out, like every path in the file, is taken from the file's folder, wherever the plan runs.
  std::ofstream(dir + "/out.toml") << "[model]\nname = \"gpt-1.7b\"\n[platform]\npreset = \"dgx-a100\"\nnodes = 1\n"
                                      "[plan]\nglobal_batch = 16\ntop = 1\ngpus = \"4\"\nout = \"from-file\"\n"
                                      "space = [\"schedule=1f1b\", \"recompute=none\", \"micro-batch=1\", \"tp=1\"]\n";
  const auto from_root = run_pipegrid("--help >/dev/null; cd / && " PIPEGRID_BINARY " plan " + dir + "/out.toml");
  ASSERT_EQ(from_root.exit_code, 0) << from_root.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/from-file/plan.csv"));
}

// Files named relative to where the plan runs: its simulations (DIR/simulate.toml, read from DIR) and
// best.toml read them from DIR, so both find them, and best.toml reruns from anywhere.
TEST(PlanCli, RelativeInputFilesAreFoundByItsSimulationsAndByBestToml) {
  const std::string dir = fresh_dir("plan-relative");
  const auto r = run_pipegrid(
      "--help >/dev/null; cd " PIPEGRID_SOURCE_DIR " && " PIPEGRID_BINARY
      " plan --hf-config experiments/models/llama3.1-8b/config.json --seq 2048 --layers 4"
      " --platform platforms/dgx-a100-1node.xml --global-batch 16 --top 2 --space schedule=1f1b"
      " --space recompute=none --space micro-batch=1 --out " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  const auto rows = csv_rows(read_file(dir + "/plan.csv"));
  ASSERT_GE(rows.size(), 3u);
  EXPECT_EQ(rows[1][18], "simulated");
  EXPECT_EQ(rows[2][18], "simulated");
  const auto best = run_pipegrid("--help >/dev/null; cd / && " PIPEGRID_BINARY " run " + dir + "/best.toml --format json");
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_EQ(fmt::format("{}", nlohmann::json::parse(best.out)["makespan"].get<double>()), rows[1][15]);
}

TEST(PlanCli, NothingFitsNamesTheClosestLayoutAndWhatItLacks) {
  const std::string dir = fresh_dir("plan-nothing-fits");
  const auto r = run_pipegrid("plan --model gpt-175b --preset dgx-a100 --nodes 1 --global-batch 8 --memory 20 "
                              "--space schedule=1f1b --space micro-batch=1 --out " + dir);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("pipegrid: error: plan: nothing fits: the closest layout (tp=8 "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GiB more than the 20.0 GiB it may hold"), std::string::npos) << r.err;
}

TEST(PlanCli, AMalformedPlanJsonIsBadInputForTheReport) {
  const std::string dir = fresh_dir("plan-bad-json");
  std::ofstream(dir + "/plan.json") << "{\"combinations\": \"many\"}";
  const auto r = run_pipegrid("report " + dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("plan.json: not a plan's JSON: "), std::string::npos) << r.err;
}

TEST(PlanCli, AnUnknownAxisOrADerivedOneIsRefused) {
  const std::string dir = fresh_dir("plan-bad-axis");
  const auto unknown = run_pipegrid("plan --model gpt-1.7b --preset dgx-a100 --nodes 1 --global-batch 16 --space foo=1 --out " + dir);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--space foo=1: no axis foo"), std::string::npos) << unknown.err;
  const auto derived = run_pipegrid("plan --model gpt-1.7b --preset dgx-a100 --nodes 1 --global-batch 16 --space dp=2 --out " + dir);
  EXPECT_EQ(derived.exit_code, 2);
  EXPECT_NE(derived.err.find("--space dp=2: dp follows from the GPUs and the global batch"), std::string::npos) << derived.err;
}

}  // namespace
}  // namespace pipegrid
