// `pipegrid simulate` given bad input: one line naming the input and the rule, exit 2, before
// SimGrid starts — the options' rules and a platform file's mistakes, named by file and line.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "command_runner.h"

namespace pipegrid {
namespace {

using test_support::read_file;
using test_support::run_pipegrid;

const std::string kPlatforms = PIPEGRID_SOURCE_DIR "/platforms";
const std::string kStar = PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml";

std::string temp_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "pipegrid-" + name + "-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  return dir;
}

struct BadSimulation {
  std::string name, args, message;
};
void PrintTo(const BadSimulation& b, std::ostream* out) { *out << "pipegrid simulate " << b.args; }

class SimulateBadInput : public ::testing::TestWithParam<BadSimulation> {};

TEST_P(SimulateBadInput, OneLineAndExitCode2) {
  const auto r = run_pipegrid("simulate " + GetParam().args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pipegrid: error: " + GetParam().message + "\n");
}

const std::string kTwoNodes = kPlatforms + "/dgx-a100-2node.xml";
const std::string kJob = " --schedule 1f1b --pp 2 --microbatches 4";

INSTANTIATE_TEST_SUITE_P(
    Messages, SimulateBadInput,
    ::testing::Values(
        BadSimulation{"MissingPlatform", "--platform nowhere.xml" + kJob, "nowhere.xml: cannot open the file"},
        BadSimulation{"TooFewGpus", "--platform " + kTwoNodes + kJob + " --tp 8 --dp 2",
                      "--tp 8 --pp 2 --dp 2: needs 32 GPUs, the platform has 16"},
        BadSimulation{"TpAcrossNodes", "--platform " + kTwoNodes + " --schedule 1f1b --pp 1 --microbatches 4 --tp 16",
                      "--tp 16: the TP group of pp rank 0, dp replica 0 spans nodes 0 (node0-gpu0) and 1 (node1-gpu0); "
                      "pass --allow-tp-across-nodes to allow it"},
        BadSimulation{"UnknownModel", "--platform " + kTwoNodes + kJob + " --model gpt-9t",
                      "--model gpt-9t: must be one of gpt-1.7b, gpt-3.6b, gpt-7.5b, gpt-18b, gpt-39b, gpt-76b, "
                      "gpt-145b, gpt-175b, gpt-310b, gpt-530b, gpt-1t, llama3.1-8b, llama3.1-70b, "
            "llama3.1-405b, nemotron4-15b, nemotron4-340b, mixtral-8x7b, mixtral-8x22b, qwen3-235b-a22b, deepseek-v3"},
        BadSimulation{"TimesAndModel", "--platform " + kTwoNodes + kJob + " --model gpt-175b --time-f 2",
                      "--time-f/--time-b/--time-w/--time-fb and --model/--layers/…: give explicit times or a model, "
                      "not both"},
        BadSimulation{"UnknownP2p", "--platform " + kTwoNodes + kJob + " --p2p eager",
                      "--p2p eager: must be one of async, rendezvous, blocking"},
        BadSimulation{"UnknownTpComm", "--platform " + kTwoNodes + kJob + " --tp-comm exact",
                      "--tp-comm exact: must be one of flow, analytic, off"},
        BadSimulation{"StageScaleSyntax", "--platform " + kTwoNodes + kJob + " --stage-cost-scale 0:1.5",
                      "--stage-cost-scale 0:1.5: expected STAGE=FACTOR[,STAGE=FACTOR…], got '0:1.5'"},
        BadSimulation{"StageScaleRange", "--platform " + kTwoNodes + kJob + " --stage-cost-scale 7=1.5",
                      "--stage-cost-scale 7=1.5: the job has stages 0-1"},
        BadSimulation{"Efficiency", "--platform " + kTwoNodes + kJob + " --model gpt-175b --compute-efficiency 1.5",
                      "--compute-efficiency 1.5: must be in (0, 1]"},
        BadSimulation{"NoGpuModel", "--platform " + kStar + kJob + " --model gpt-175b --layers 2",
                      kStar + ": host gpu0 has no gpu_model property; the compute model needs the GPU it describes "
                      "(A100, H100, H800: platforms/gpus/), or run with --compute-efficiency"},
        BadSimulation{"GpuFile", "--platform " + kTwoNodes + kJob + " --model gpt-175b --gpu-file /nonexistent.toml",
                      "--gpu-file /nonexistent.toml: not a regular file (or missing)"},
        BadSimulation{"GpuFileDevice", "--platform " + kTwoNodes + kJob + " --model gpt-175b --gpu-file /dev/zero",
                      "--gpu-file /dev/zero: not a regular file (or missing)"},
        BadSimulation{"Layers", "--platform " + kTwoNodes + kJob + " --model gpt-175b --layers 95",
                      "--layers 95: must split evenly over 2 stages (--pp 2 × --chunks 1)"},
        BadSimulation{"EpNotDividingExperts", "--platform " + kTwoNodes + kJob + " --dp 4 --model deepseek-v3 --ep 3",
                      "--ep 3: must divide --experts 256"},
        BadSimulation{"EpNotDividingTheGpus", "--platform " + kTwoNodes + kJob + " --dp 4 --model deepseek-v3 --uneven-layers --ep 8",
                      "--ep 8 --etp 1: ep·etp = 8 must divide tp·cp·dp = 4 (the GPUs of a stage, which the expert "
                      "layers split into etp × ep × expert-data-parallel)"},
        BadSimulation{"EtpNotDividingExpertHidden", "--platform " + kTwoNodes + kJob + " --dp 4 --model deepseek-v3 --ep 2 --etp 3",
                      "--etp 3: must divide --expert-hidden 2048 (each GPU holds a column slice of every expert it has; "
                      "--etp is --tp unless given)"},
        BadSimulation{"MoeWithTensorParallelism", "--platform " + kTwoNodes + kJob + " --tp 2 --dp 4 --model deepseek-v3 --uneven-layers --ep 2",
                      "--tp 2: mixture-of-experts layers with --tp > 1 need --sequence-parallel (Megatron-Core refuses "
                      "MoE with tensor parallelism without it)"},
        BadSimulation{"EtpInDualPipePairs", "--platform " + kTwoNodes + " --schedule dualpipev --pp 2 --microbatches 4 --dp 4 --model deepseek-v3 --uneven-layers --ep 2 --etp 2",
                      "--etp 2: expert tensor parallelism in dualpipev's overlapped forward-backward pairs is not "
                      "modelled; run it with --etp 1 or another schedule"},
        BadSimulation{"PlacementUnknownName", "--platform " + kTwoNodes + kJob + " --placement tp-xp-dp-pp",
                      "--placement tp-xp-dp-pp: must order tp, dp and pp (and optionally cp and ep), fastest first, as in "
                      "tp-cp-ep-dp-pp"},
        BadSimulation{"PlacementTwice", "--platform " + kTwoNodes + kJob + " --placement tp-dp-pp-dp",
                      "--placement tp-dp-pp-dp: must name each dimension once"},
        BadSimulation{"PlacementWithoutPp", "--platform " + kTwoNodes + kJob + " --placement tp-cp-dp",
                      "--placement tp-cp-dp: must order tp, dp and pp (and optionally cp and ep), fastest first, as in "
                      "tp-cp-ep-dp-pp"},
        // Dense: GPU k = r + 2d; experts (etp 2, pp, ep 2): GPU 1 is pp rank ⌊1/2⌋ mod 2 = 0 there.
        BadSimulation{"PlacementSplitsExpertStages", "--platform " + kTwoNodes + kJob + " --dp 4 --model deepseek-v3 --uneven-layers --ep 2 --etp 2 --placement tp-pp-dp",
                      "--placement tp-pp-dp: with --etp 2 and --tp 1 GPU 1 would be pipeline rank 0 in the expert "
                      "layers and 1 in the others; put pp after tp, cp, ep and dp"},
        BadSimulation{"TopKAboveExperts", "--platform " + kTwoNodes + kJob + " --dp 4 --model deepseek-v3 --top-k 300",
                      "--top-k 300: cannot exceed --experts 256"},
        BadSimulation{"NegativeSkew", "--platform " + kTwoNodes + kJob + " --dp 4 --model deepseek-v3 --routing zipf:-1",
                      "--routing zipf:-1: the Zipf skew must be a number in [0, 100]"},
        BadSimulation{"MoeWithoutModel", "--platform " + kTwoNodes + kJob + " --ep 2",
                      "--experts/--ep/--routing/…: mixture-of-experts layers need a model (--model or --layers …)"},
        BadSimulation{"Schedule", "--platform " + kTwoNodes + " --schedule zigzag --pp 2 --microbatches 4",
                      "--schedule zigzag: must be one of gpipe, 1f1b, interleaved, zb-h1, zb-h2, zbv, dualpipe, dualpipev"}),
    [](const ::testing::TestParamInfo<BadSimulation>& param_info) { return param_info.param.name; });

// Platform files with a mistake: named by file and line, before SimGrid parses them.
TEST(SimulateCli, ABrokenPlatformFileIsNamedByLine) {
  const std::string dir = temp_dir("broken");
  std::filesystem::create_directories(dir);
  std::string xml = read_file(kPlatforms + "/dgx-a100-1node.xml");
  const std::string zero = dir + "/zero-bandwidth.xml";
  std::ofstream(zero) << std::regex_replace(xml, std::regex("bandwidth=\"300GBps\""), "bandwidth=\"0GBps\"",
                                            std::regex_constants::format_first_only);
  auto r = run_pipegrid("simulate --platform " + zero + kJob);
  EXPECT_EQ(r.exit_code, 2);
  // The line of the broken link, counted in the text.
  const auto line = 1 + std::count(xml.begin(), xml.begin() + xml.find(R"(<link id="node0-gpu0-nvlink")"), '\n');
  EXPECT_EQ(r.err, fmt::format("pipegrid: error: {}:{}: link node0-gpu0-nvlink: bandwidth must be positive, got 0GBps\n",
                               zero, line));

  const std::string malformed = dir + "/malformed.xml";
  std::ofstream(malformed) << xml.substr(0, xml.find("</zone>"));
  r = run_pipegrid("simulate --platform " + malformed + kJob);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.starts_with("pipegrid: error: " + malformed + ":")) << r.err;
  EXPECT_NE(r.err.find(": malformed XML: "), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace pipegrid
