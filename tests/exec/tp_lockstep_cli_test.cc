// One actor per TP group (--tp-lockstep auto, sim/exec/tp_lockstep.h) and one SimGrid comm for the
// TP members' copies of a flow (--rail-fold auto, sim/exec/rail_fold.h), the defaults, against one
// actor and one comm per GPU (--tp-lockstep off, which folds nothing) on generated DGX A100
// platforms, which are rail-symmetric: every member's flows cross images of the first member's
// links, so the members' inputs arrive together and the runs must agree — summary.json (makespan,
// step ends, every GPU's account), links.csv and the trace rows (in any order), to 1e-9 relative; a
// deadlock's report and deadlock.json alike. Where the rails share a link (one NIC per node) the fold
// declines and says why, and the results stay the unfolded run's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "command_runner.h"

namespace pipegrid {
namespace {

using test_support::read_file;
using test_support::run_pipegrid;

std::string out_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "tp-lockstep-" + name + "-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  return dir;
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max({std::abs(a), std::abs(b), 1e-3}); }

// A field of text: equal, or both numbers equal to 1e-9.
bool same_field(const std::string& a, const std::string& b) {
  if (a == b) return true;
  char* end_a = nullptr;
  char* end_b = nullptr;
  const double x = std::strtod(a.c_str(), &end_a), y = std::strtod(b.c_str(), &end_b);
  return !a.empty() && !b.empty() && *end_a == 0 && *end_b == 0 && near(x, y);
}

void expect_same_json(const nlohmann::json& a, const nlohmann::json& b, const std::string& where) {
  if (a.is_number() && b.is_number()) {
    EXPECT_TRUE(near(a.get<double>(), b.get<double>())) << where << ": " << a << " against " << b;
    return;
  }
  ASSERT_EQ(a.type(), b.type()) << where;
  if (a.is_object()) {
    ASSERT_EQ(a.size(), b.size()) << where;
    for (const auto& [key, value] : a.items()) {
      ASSERT_TRUE(b.contains(key)) << where << "." << key;
      expect_same_json(value, b[key], where + "." + key);
    }
  } else if (a.is_array()) {
    ASSERT_EQ(a.size(), b.size()) << where;
    for (std::size_t i = 0; i < a.size(); ++i) expect_same_json(a[i], b[i], where + "[" + std::to_string(i) + "]");
  } else {
    EXPECT_EQ(a, b) << where;
  }
}

std::vector<std::string> split(const std::string& line, char by) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string field; std::getline(in, field, by);) fields.push_back(field);
  return fields;
}

// The rows of a CSV file, sorted (the trace's rows come in the order events end, which the actors
// interleave differently), compared field by field.
void expect_same_csv(const std::string& a_file, const std::string& b_file) {
  std::vector<std::string> a = split(read_file(a_file), '\n'), b = split(read_file(b_file), '\n');
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  ASSERT_EQ(a.size(), b.size()) << a_file;
  ASSERT_GT(a.size(), 1u) << a_file;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::vector<std::string> x = split(a[i], ','), y = split(b[i], ',');
    ASSERT_EQ(x.size(), y.size()) << a_file << ": " << a[i] << " against " << b[i];
    for (std::size_t f = 0; f < x.size(); ++f)
      EXPECT_TRUE(same_field(x[f], y[f])) << a_file << ": " << a[i] << " against " << b[i];
  }
}

// Runs the job both ways; returns the two output folders (lockstep, per GPU) and their exit codes.
struct Pair {
  std::string lockstep, per_gpu;
  test_support::CommandResult grouped, single;
};

Pair run_both(const std::string& name, const std::string& job) {
  Pair p{out_dir(name + "-auto"), out_dir(name + "-off"), {}, {}};
  p.grouped = run_pipegrid("simulate " + job + " --out " + p.lockstep);
  p.single = run_pipegrid("simulate " + job + " --tp-lockstep off --out " + p.per_gpu);
  return p;
}

nlohmann::json summary_of(const std::string& dir) {
  nlohmann::json summary = nlohmann::json::parse(read_file(dir + "/summary.json"));
  summary["inputs"]["options"].erase("tp_lockstep");
  return summary;
}

// The summary without what the levers change: how many actors and comms ran the job, and whether
// the rails were folded.
nlohmann::json results_of(nlohmann::json summary) {
  for (const char* lever : {"actors", "simgrid_comms", "rail_fold", "rail_fold_mirror_links",
                            "rail_fold_analytic_mirror_links", "rail_fold_why_not", "route_search"})
    summary.erase(lever);
  return summary;
}

// A report with the output folder it names as DIR: the two runs write to different folders.
std::string in_own_folder(std::string text, const std::string& folder) {
  for (std::size_t at; (at = text.find(folder)) != std::string::npos;) text.replace(at, folder.size(), "DIR");
  return text;
}

// Links (a row per direction) with flows and no analytic bytes, from links.csv.
int flow_only_links(const std::string& file) {
  const std::vector<std::string> rows = split(read_file(file), '\n');
  const std::vector<std::string> header = split(rows.at(0), ',');
  const auto column = [&](const char* name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const std::size_t flows = column("flows"), analytic = column("analytic_bytes");
  int count = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string> row = split(rows[i], ',');
    count += std::stod(row.at(flows)) > 0 && std::stod(row.at(analytic)) == 0;
  }
  return count;
}

struct Case {
  std::string name;
  std::string job;
  // How many GPUs' copies of a flow one comm carries: the job's TP where the rails fold (every flow
  // joins two GPUs of one TP index, so a fold starts 1/TP of the comms), 1 where the fold declines.
  int fold;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

class TpLockstep : public ::testing::TestWithParam<Case> {};

TEST_P(TpLockstep, GivesWhatOneActorPerGpuGives) {
  const Pair p = run_both(GetParam().name, GetParam().job);
  ASSERT_EQ(p.grouped.exit_code, 0) << p.grouped.err;
  ASSERT_EQ(p.single.exit_code, 0) << p.single.err;
  const nlohmann::json grouped = summary_of(p.lockstep), single = summary_of(p.per_gpu);
  // The levers engaged: fewer actors than GPUs, and one comm for the TP members' copies of a flow.
  EXPECT_LT(grouped["actors"].get<int>(), single["actors"].get<int>());
  EXPECT_EQ(single["actors"].get<int>(), static_cast<int>(single["gpus"].size()));
  EXPECT_EQ(grouped["rail_fold"], GetParam().fold > 1) << grouped["rail_fold_why_not"];
  EXPECT_EQ(single["rail_fold"], false);
  EXPECT_GT(grouped["simgrid_comms"].get<int>(), 0);
  EXPECT_EQ(single["simgrid_comms"].get<int>(), GetParam().fold * grouped["simgrid_comms"].get<int>());
  if (GetParam().fold > 1) {
    // The links that carried flows and nothing analytic in the unfolded run are the rails' images of
    // each other, a TP-th of them rail 0's: the rest take rail 0's accounts (no link mirrors where
    // the collectives between groups are analytic).
    const bool analytic_dp = GetParam().job.find("--dp-comm analytic") != std::string::npos;
    EXPECT_EQ(grouped["rail_fold_mirror_links"].get<int>(),
              analytic_dp ? 0 : flow_only_links(p.per_gpu + "/links.csv") * (GetParam().fold - 1) / GetParam().fold);
    // Inside a TP group of 8 on a DGX node, member k's analytic ring hop k → k + 1 crosses GPU k's
    // NVLink out, the NVSwitch both ways and GPU k + 1's NVLink in: for k = 1..7 the two NVLink
    // directions mirror member 0's (GPU 0's out, GPU 1's in), the NVSwitch is every hop's. 14 per
    // group, four groups (one per node); none where the TP all-reduces are off.
    const bool tp_off = GetParam().job.find("--tp-comm off") != std::string::npos;
    EXPECT_EQ(grouped["rail_fold_analytic_mirror_links"].get<int>(), tp_off ? 0 : 4 * 14);
  }
  expect_same_json(results_of(grouped), results_of(single), "summary");
  expect_same_csv(p.lockstep + "/links.csv", p.per_gpu + "/links.csv");
  expect_same_csv(p.lockstep + "/trace.csv", p.per_gpu + "/trace.csv");
}

const std::string kModel = " --model gpt-7.5b --layers 8 --link-window 1e-4 ";

INSTANTIATE_TEST_SUITE_P(
    Jobs, TpLockstep,
    ::testing::Values(
        // DP rings over the nodes' rails, TP 8 on each node.
        Case{"OneFOneB", "--preset dgx-a100 --nodes 4 --schedule 1f1b --tp 8 --pp 2 --dp 2 --microbatches 6" + kModel, 8},
        // DP rings on NVLink (two replicas per node), TP 4: every rail's ring crosses the node's
        // NVSwitch link, which the fold cannot give each rail alone — it declines.
        Case{"DpInNode", "--preset dgx-a100 --nodes 2 --schedule 1f1b --tp 4 --pp 2 --dp 2 --microbatches 4" + kModel, 1},
        Case{"Interleaved",
             "--preset dgx-a100 --nodes 4 --schedule interleaved --chunks 2 --tp 8 --pp 4 --microbatches 8" + kModel, 8},
        Case{"RendezvousChannels", "--preset dgx-a100 --nodes 4 --schedule 1f1b --tp 8 --pp 2 --dp 2 --microbatches 6 "
                                   "--p2p rendezvous --p2p-channels 2" + kModel, 8},
        Case{"ZeroBubblePostValidationSteps", "--preset dgx-a100 --nodes 4 --schedule zb-h1 --tp 8 --pp 4 "
                                              "--microbatches 8 --optimizer-sync post-validation --steps 2" + kModel, 8},
        Case{"DistributedOptimizer", "--preset dgx-a100 --nodes 4 --schedule 1f1b --tp 8 --pp 2 --dp 2 --microbatches 4 "
                                     "--distributed-optimizer --steps 2 --grad-bucket-size 1e7" + kModel, 8},
        Case{"DualPipeAnalyticDp", "--preset dgx-a100 --nodes 4 --schedule dualpipe --tp 8 --pp 4 --microbatches 8 "
                                   "--dp-comm analytic" + kModel, 8},
        Case{"TpOffGradOverlapOff", "--preset dgx-a100 --nodes 4 --schedule 1f1b --tp 8 --pp 2 --dp 2 --microbatches 4 "
                                    "--tp-comm off --grad-overlap off" + kModel, 8}),
    [](const ::testing::TestParamInfo<Case>& param_info) { return param_info.param.name; });

TEST(RouteSearch, FindsTheRoutesOfTheRailsSimGridDoesNotCarryAsSimGridWould) {
  // Folded, the routes of rails 1..7 come from pipegrid's copy of SimGrid's Dijkstra, rail 0's from
  // SimGrid and checked against it: the same summary and links as SimGrid finding every route.
  const std::string job = "simulate --preset dgx-a100 --nodes 4 --schedule 1f1b --tp 8 --pp 2 --dp 2 --microbatches 4" +
                          kModel;
  const std::string searched = out_dir("route-search-auto"), simgrid = out_dir("route-search-simgrid");
  const auto a = run_pipegrid(job + " --out " + searched);
  const auto b = run_pipegrid(job + " --route-search simgrid --out " + simgrid);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  nlohmann::json with = summary_of(searched), without = summary_of(simgrid);
  ASSERT_TRUE(with.contains("route_search"));
  EXPECT_FALSE(without.contains("route_search"));
  // Rails 1..7's routes from the search, rail 0's from SimGrid, each checked against the search.
  EXPECT_GT(with["route_search"]["searched"].get<int>(), 0);
  EXPECT_GT(with["route_search"]["checked_against_simgrid"].get<int>(), 0);
  with.erase("route_search");
  with["inputs"]["options"].erase("route_search");
  without["inputs"]["options"].erase("route_search");
  EXPECT_EQ(with, without);
  EXPECT_EQ(read_file(searched + "/links.csv"), read_file(simgrid + "/links.csv"));
}

TEST(TpLockstep, DeadlocksAsOneActorPerGpuDoes) {
  // --grad-sync-order crossed, gradients after the step: with pp 2 and dp 2 the step-end collectives
  // wait for each other in a cycle (grad_sync_order_test.cc).
  const Pair p = run_both("crossed", "--preset dgx-a100 --nodes 4 --schedule 1f1b --tp 8 --pp 2 --dp 2 --microbatches 4 "
                                     "--grad-sync-order crossed --grad-overlap off" + kModel);
  ASSERT_EQ(p.single.exit_code, 3) << p.single.err;
  EXPECT_EQ(p.grouped.exit_code, 3);
  EXPECT_EQ(in_own_folder(p.grouped.err, p.lockstep), in_own_folder(p.single.err, p.per_gpu));
  EXPECT_EQ(in_own_folder(p.grouped.out, p.lockstep), in_own_folder(p.single.out, p.per_gpu));
  EXPECT_NE((p.single.out + p.single.err).find("deadlock at"), std::string::npos);
  expect_same_json(nlohmann::json::parse(read_file(p.lockstep + "/deadlock.json")),
                   nlohmann::json::parse(read_file(p.per_gpu + "/deadlock.json")), "deadlock");
}

TEST(TpLockstep, AHostGoingDownFailsTheJobAsOneActorPerGpuDoes) {
  // node1-gpu3 (TP rank 3 of pipeline rank 1's group, not the host its group's actor runs on) goes
  // down mid-step: exit 4, the same line and failure.json (every GPU's state at the failure).
  const std::string dir = out_dir("host-down");
  std::filesystem::create_directories(dir);
  const auto gen = run_pipegrid("platform gen --preset dgx-a100 --nodes 4");
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  std::ofstream(dir + "/cluster.xml") << gen.out;
  const auto perturb = run_pipegrid("platform perturb " + dir + "/cluster.xml --fail node1-gpu3@0.03 --out " + dir + "/down");
  ASSERT_EQ(perturb.exit_code, 0) << perturb.err;
  const Pair p = run_both("host-down", "--platform " + dir + "/down/platform.xml --schedule 1f1b --tp 8 --pp 2 --dp 2 "
                                       "--microbatches 4" + kModel);
  ASSERT_EQ(p.single.exit_code, 4) << p.single.err;
  EXPECT_EQ(p.grouped.exit_code, 4);
  EXPECT_NE(p.single.err.find("node1-gpu3"), std::string::npos) << p.single.err;
  EXPECT_EQ(in_own_folder(p.grouped.err, p.lockstep), in_own_folder(p.single.err, p.per_gpu));
  expect_same_json(nlohmann::json::parse(read_file(p.lockstep + "/failure.json")),
                   nlohmann::json::parse(read_file(p.per_gpu + "/failure.json")), "failure");
}

TEST(TpLockstep, TensorAllReducesAsFlowsKeepOneActorPerGpu) {
  const Pair p = run_both("tp-flow", "--preset dgx-a100 --nodes 2 --schedule 1f1b --tp 8 --pp 2 --microbatches 2 "
                                     "--tp-comm flow --trace off" + kModel);
  ASSERT_EQ(p.grouped.exit_code, 0) << p.grouped.err;
  const nlohmann::json summary = summary_of(p.lockstep);
  EXPECT_EQ(summary["actors"], 16);
  // No lockstep, no fold: the members' flows need not start together.
  EXPECT_EQ(summary["rail_fold"], false);
  EXPECT_EQ(summary["rail_fold_why_not"], "GPU 0's TP group does not run in lockstep (tp_lockstep.h)");
}

TEST(RailFold, DeclinesWhereTheRailsShareALinkAndTheResultsStayTheUnfoldedRuns) {
  // One InfiniBand port per node: the 8 members' pipeline flows to the next node share it, so one
  // comm for all of them would take a share the 8 do not get. The fold declines, naming the link.
  const std::string job = "--preset dgx-a100 --nodes 4 --nics-per-node 1 --schedule 1f1b --tp 8 --pp 2 --dp 2 "
                          "--microbatches 4 --trace off" + kModel;
  const std::string folded = out_dir("one-nic-auto"), unfolded = out_dir("one-nic-off");
  const auto a = run_pipegrid("simulate " + job + " --out " + folded);
  const auto b = run_pipegrid("simulate " + job + " --rail-fold off --out " + unfolded);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const nlohmann::json summary = nlohmann::json::parse(read_file(folded + "/summary.json"));
  EXPECT_EQ(summary["rail_fold"], false);
  const std::string why = summary["rail_fold_why_not"];
  EXPECT_TRUE(why.starts_with("link ") && why.find(" carries the flows of rails 0 and 1") != std::string::npos) << why;
  nlohmann::json off = nlohmann::json::parse(read_file(unfolded + "/summary.json"));
  off["inputs"]["options"]["rail_fold"] = "auto";
  expect_same_json(results_of(summary), results_of(off), "summary");
  EXPECT_EQ(summary["simgrid_comms"], off["simgrid_comms"]);
}

}  // namespace
}  // namespace pipegrid
