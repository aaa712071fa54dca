// `pipegrid schedule` and `check` time a model (the contention-free engine priced as simulate prices
// it): against `pipegrid simulate` with analytic collectives on a platform without contention, and
// the rules for giving a model.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "command_runner.h"

namespace pipegrid {
namespace {

using test_support::fresh_dir;
using test_support::read_file;
using test_support::run_pipegrid;

const std::string kPlatform = PIPEGRID_TEST_DATA "/platforms/star-finite-16gpu.xml";
const std::string kModel = "--layers 8 --hidden 512 --heads 8 --seq 1024 --vocab 8192 --micro-batch 2";
const std::string kJob = "--schedule interleaved --pp 4 --microbatches 8 --chunks 2 --tp 2 --dp 2 --platform " +
                         kPlatform + " " + kModel;

double simulated_makespan(const std::string& job) {
  const std::string dir = fresh_dir("schedule-model-sim");
  const auto r = run_pipegrid("simulate " + job + " --tp-comm analytic --dp-comm analytic --out " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(read_file(dir + "/summary.json"))["makespan"].get<double>();
}

TEST(ScheduleModel, StepTimeIsSimulatesWithoutContention) {
  const auto r = run_pipegrid("schedule " + kJob + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["estimate"], "contention-free");
  EXPECT_FALSE(j.contains("times"));  // no one set of explicit times
  ASSERT_EQ(j["model"]["stages"].size(), 8u);
  EXPECT_GT(j["model"]["stages"][0]["send_forward"]["transfer"].get<double>(), 0);
  const double step = j["step_time"].get<double>();
  // The step ends after the pipeline: gradients and the optimizer come after its last op.
  EXPECT_GT(step, j["makespan"].get<double>());
  const double simulated = simulated_makespan(kJob);
  EXPECT_NEAR(step, simulated, 1e-9 * simulated);
}

// The options that change what an op costs reach the contention-free engine too: sequence
// parallelism with Transformer Engine's overlap prices as simulate prices it, and below the step
// without the overlap (the collectives no longer add to the GEMMs).
TEST(ScheduleModel, TpCommOverlapIsPricedAsSimulatePricesIt) {
  const std::string sp = kJob + " --sequence-parallel";
  const auto serial = run_pipegrid("schedule " + sp + " --format json");
  const auto overlapped = run_pipegrid("schedule " + sp + " --tp-comm-overlap --format json");
  ASSERT_EQ(serial.exit_code, 0) << serial.err;
  ASSERT_EQ(overlapped.exit_code, 0) << overlapped.err;
  const double step = nlohmann::json::parse(overlapped.out)["step_time"].get<double>();
  EXPECT_LT(step, nlohmann::json::parse(serial.out)["step_time"].get<double>());
  const double simulated = simulated_makespan(sp + " --tp-comm-overlap");
  EXPECT_NEAR(step, simulated, 1e-9 * simulated);
}

TEST(ScheduleModel, TheTableSaysWhatTheStepTimeIs) {
  const auto r = run_pipegrid("schedule " + kJob);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("the contention-free estimate"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("step time "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("compute model of a100-80gb"), std::string::npos) << r.out;
}

TEST(ScheduleModel, CheckTimesAFileAsScheduleTimesItsSchedule) {
  const std::string dir = fresh_dir("schedule-model-check");
  const auto csv = run_pipegrid("schedule --schedule 1f1b --pp 4 --microbatches 8 --format csv");
  ASSERT_EQ(csv.exit_code, 0);
  {
    std::ofstream(dir + "/1f1b.csv") << csv.out;
  }
  const std::string layout = " --tp 2 --dp 2 --platform " + kPlatform + " " + kModel + " --format json";
  const auto checked = run_pipegrid("check " + dir + "/1f1b.csv" + layout);
  ASSERT_EQ(checked.exit_code, 0) << checked.err;
  const auto generated = run_pipegrid("schedule --schedule 1f1b --pp 4 --microbatches 8" + layout);
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  const double step = nlohmann::json::parse(checked.out)["step_time"].get<double>();
  EXPECT_EQ(step, nlohmann::json::parse(generated.out)["step_time"].get<double>());
  const double simulated = simulated_makespan("--schedule-file " + dir + "/1f1b.csv --tp 2 --dp 2 --platform " +
                                              kPlatform + " " + kModel);
  EXPECT_NEAR(step, simulated, 1e-9 * simulated);
}

TEST(ScheduleModel, ExplicitTimesAndAModelAreRefusedNamingBoth) {
  for (const std::string& command : {"schedule " + kJob, "check " PIPEGRID_SOURCE_DIR "/schedules/none.csv --platform " +
                                                              kPlatform + " " + kModel}) {
    const auto r = run_pipegrid(command + " --time-f 2");
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_EQ(r.err,
              "pipegrid: error: --time-f/--time-b/--time-w/--time-fb and --model/--layers/…: give explicit times or a "
              "model, not both\n");
  }
}

TEST(ScheduleModel, AModelNeedsAPlatformAndItsRoutesLatency) {
  const auto none = run_pipegrid("schedule --schedule 1f1b --pp 4 --microbatches 8 " + kModel);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err.rfind("pipegrid: error: --platform FILE.xml or --preset NAME: needed to time a model", 0), 0u)
      << none.err;
  const auto latency = run_pipegrid("schedule " + kJob + " --p2p-latency 1e-6");
  EXPECT_EQ(latency.exit_code, 2);
  EXPECT_EQ(latency.err.rfind("pipegrid: error: --p2p-latency and --model/--layers/…", 0), 0u) << latency.err;
  const auto all = run_pipegrid("schedule --schedule all --pp 4 --microbatches 8 --platform " + kPlatform + " " + kModel);
  EXPECT_EQ(all.exit_code, 2);
  EXPECT_EQ(all.err.rfind("pipegrid: error: --schedule all: ", 0), 0u) << all.err;
}

TEST(ScheduleModel, AModelsOptionsWithoutAModelAreRefused) {
  const auto r = run_pipegrid("schedule --schedule 1f1b --pp 4 --microbatches 8 --tp 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: --tp: prices a model's step; give the model (--model NAME or --layers …) or "
                   "leave it out with explicit --time-*\n");
}

TEST(ScheduleModel, MixtureOfExpertsIsPricedButDualPipesPairsAreLeftToSimulate) {
  // The all-to-alls at their α-β times (schedule's fidelities are analytic), each op's phases in turn;
  // DualPipe's overlapped pairs of MoE chunks are simulate's.
  const std::string moe = " --pp 2 --microbatches 4 --platform " + kPlatform + " --model deepseek-v3 --layers 4 "
                          "--first-dense-layers 0 --ep 2 --dp 2";
  const auto priced = run_pipegrid("schedule --schedule 1f1b" + moe);
  EXPECT_EQ(priced.exit_code, 0) << priced.err;
  EXPECT_NE(priced.out.find("step time"), std::string::npos) << priced.out;
  const auto pairs = run_pipegrid("schedule --schedule dualpipev" + moe);
  EXPECT_EQ(pairs.exit_code, 2) << pairs.err;
  EXPECT_EQ(pairs.err, "pipegrid: error: the contention-free engine does not time overlapped pairs of "
                       "mixture-of-experts chunks; run pipegrid simulate\n");
}

}  // namespace
}  // namespace pipegrid
