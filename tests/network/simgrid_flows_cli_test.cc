// --simgrid-flows exec (the default: each flow an Exec on its two hosts, made by an actor per sending
// GPU, sim/network/flow_owners.h) against comm (a host-to-host Comm of maestro's): SimGrid's network model
// gets the same action for a flow either way (HostCLM03Model::execute_parallel calls communicate()
// with the hosts and bytes a Comm gives it), so every output must be the same — summary.json but for
// the option's own echo, links.csv byte for byte, the trace rows in any order — on the flows pipegrid
// makes: DeepEP's and the pairwise all-to-all, TP and DP rings as flows, folded rails, a link's
// bandwidth profile, and a link going down (the job failing, or waiting and resending).
#include <gtest/gtest.h>

#include <algorithm>
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
  const std::string dir = ::testing::TempDir() + "simgrid-flows-" + name + "-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  return dir;
}

std::vector<std::string> sorted_lines(const std::string& file) {
  std::vector<std::string> lines;
  std::stringstream in(read_file(file));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

const std::string kModel = " --model gpt-7.5b --layers 8 --link-window 1e-4";
const std::string kMoe = " --layers 4 --hidden 512 --heads 8 --seq 256 --vocab 1024 --experts 16 --top-k 2 "
                         "--expert-hidden 256 --ep-comm flow";

struct Case {
  std::string name;
  std::string job;     // after `simulate`, before --out
  int exit_code = 0;
  std::string perturb;  // `platform perturb` options for a generated 4-node DGX A100, or none
};

class SimgridFlows : public ::testing::TestWithParam<Case> {};

TEST_P(SimgridFlows, ExecAndCommGiveTheSameOutputs) {
  const Case& c = GetParam();
  std::string job = c.job;
  if (!c.perturb.empty()) {
    const std::string dir = out_dir(c.name + "-platform");
    std::filesystem::create_directories(dir);
    const auto gen = run_pipegrid("platform gen --preset dgx-a100 --nodes 4");
    ASSERT_EQ(gen.exit_code, 0) << gen.err;
    std::ofstream(dir + "/cluster.xml") << gen.out;
    const auto perturb = run_pipegrid("platform perturb " + dir + "/cluster.xml " + c.perturb + " --out " + dir + "/p");
    ASSERT_EQ(perturb.exit_code, 0) << perturb.err;
    job = "--platform " + dir + "/p/platform.xml " + job;
  }
  const std::string exec_dir = out_dir(c.name + "-exec"), comm_dir = out_dir(c.name + "-comm");
  const auto exec = run_pipegrid("simulate " + job + " --out " + exec_dir);
  const auto comm = run_pipegrid("simulate " + job + " --simgrid-flows comm --out " + comm_dir);
  ASSERT_EQ(exec.exit_code, c.exit_code) << exec.err;
  ASSERT_EQ(comm.exit_code, c.exit_code) << comm.err;
  auto in_own = [](std::string text, const std::string& dir) {
    for (std::size_t at; (at = text.find(dir)) != std::string::npos;) text.replace(at, dir.size(), "DIR");
    return text;
  };
  EXPECT_EQ(in_own(exec.err, exec_dir), in_own(comm.err, comm_dir));
  EXPECT_EQ(in_own(exec.out, exec_dir), in_own(comm.out, comm_dir));
  for (const char* file : {"links.csv", "failure.json"}) {
    if (!std::filesystem::exists(comm_dir + "/" + file)) continue;
    ASSERT_TRUE(std::filesystem::exists(exec_dir + "/" + file)) << file;
    EXPECT_EQ(read_file(exec_dir + "/" + file), read_file(comm_dir + "/" + file)) << file;
  }
  if (std::filesystem::exists(comm_dir + "/trace.csv")) {
    EXPECT_EQ(sorted_lines(exec_dir + "/trace.csv"), sorted_lines(comm_dir + "/trace.csv"));
  }
  if (c.exit_code != 0) return;
  nlohmann::json a = nlohmann::json::parse(read_file(exec_dir + "/summary.json"));
  nlohmann::json b = nlohmann::json::parse(read_file(comm_dir + "/summary.json"));
  EXPECT_EQ(a["inputs"]["options"]["simgrid_flows"], "exec");
  EXPECT_EQ(b["inputs"]["options"]["simgrid_flows"], "comm");
  a["inputs"]["options"].erase("simgrid_flows");
  b["inputs"]["options"].erase("simgrid_flows");
  EXPECT_GT(a["simgrid_comms"].get<int>(), 0);
  EXPECT_EQ(a, b);
}

INSTANTIATE_TEST_SUITE_P(
    Flows, SimgridFlows,
    ::testing::Values(
        Case{"DeepEpAllToAll", "--preset dgx-a100 --nodes 2 --schedule dualpipe --pp 2 --dp 8 --ep 8 --microbatches 4" + kMoe, 0, ""},
        Case{"PairwiseSkewedAllToAll", "--preset dgx-a100 --nodes 2 --schedule 1f1b --pp 2 --dp 8 --ep 8 "
                                       "--microbatches 4 --ep-flows pairwise --routing zipf:0.5" + kMoe, 0, ""},
        Case{"TpAndDpRingsAsFlows", "--preset dgx-a100 --nodes 4 --schedule interleaved --chunks 2 --tp 8 --pp 2 --dp 2 "
                                    "--microbatches 4 --tp-comm flow --dp-comm flow" + kModel, 0, ""},
        Case{"FoldedRails", "--preset dgx-a100 --nodes 4 --schedule 1f1b --tp 8 --pp 2 --dp 2 --microbatches 4" + kModel, 0, ""},
        Case{"DegradedLink", "--schedule 1f1b --tp 8 --pp 2 --dp 2 --microbatches 4 --rail-fold off" + kModel, 0,
             "--degrade-link node1-nic0-ib=0.25@0.01"},
        Case{"LinkDownFails", "--schedule 1f1b --tp 8 --pp 2 --dp 2 --microbatches 4 --rail-fold off" + kModel, 4,
             "--fail node1-nic0-ib@0.01"},
        Case{"LinkDownWaits", "--schedule 1f1b --tp 8 --pp 2 --dp 2 --microbatches 4 --rail-fold off --on-failure wait" +
                                  kModel, 0, "--fail node1-nic0-ib@0.01..0.05"}),
    [](const ::testing::TestParamInfo<Case>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace pipegrid
