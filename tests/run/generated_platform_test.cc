// Experiment files and simulate generate their platform from platform gen's options ([platform]
// preset, nodes, ib_bw, …): the run is the run of the file platform gen writes, a sweep can vary the
// options and never serves a row of another generated platform; relative paths inside experiment and
// sweep files are taken from the file's folder; an option that changes nothing says so.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "command_runner.h"

namespace pipegrid {
namespace {

namespace fs = std::filesystem;
using test_support::read_file;
using test_support::run_pipegrid;

std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "pipegrid-generated-" + name + "-" + std::to_string(getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// 1F1B over the two nodes of a DGX A100 pair (pp 2 × dp 8, pipeline ranks one node each), 100 MB
// per stage boundary: every p2p message crosses InfiniBand.
constexpr const char* kJob =
    "[parallel]\npp = 2\ndp = 8\nmicrobatches = 4\n[sim]\nschedule = \"1f1b\"\ntime_f = 0.01\ntime_b = 0.02\n"
    "time_w = 0.01\np2p_bytes = 1e8\n[output]\ntrace = \"off\"\n";

nlohmann::json without_platform(const std::string& summary) {
  nlohmann::json json = nlohmann::json::parse(summary);
  json["inputs"].erase("platform");
  return json;
}

TEST(GeneratedPlatform, RunsAsTheFilePlatformGenWrites) {
  const std::string dir = fresh_dir("same");
  const auto gen = run_pipegrid("platform gen --preset dgx-a100 --nodes 2 --ib-bw 12.5GBps");
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  std::ofstream(dir + "/cluster.xml") << gen.out;
  std::ofstream(dir + "/file.toml") << "[platform]\nfile = \"cluster.xml\"\n" << kJob;
  std::ofstream(dir + "/generated.toml") << "[platform]\npreset = \"dgx-a100\"\nnodes = 2\nib_bw = \"12.5GBps\"\n"
                                         << kJob;
  const auto from_file = run_pipegrid("run " + dir + "/file.toml --out " + dir + "/a");
  const auto generated = run_pipegrid("run " + dir + "/generated.toml --out " + dir + "/b");
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  EXPECT_EQ(generated.err, "");
  // The file the run generated is platform gen's, byte for byte; the results are that file's.
  EXPECT_EQ(read_file(dir + "/b/platform.xml"), gen.out);
  EXPECT_FALSE(fs::exists(dir + "/a/platform.xml"));
  const std::string a = read_file(dir + "/a/summary.json"), b = read_file(dir + "/b/summary.json");
  EXPECT_NE(a, b);  // the echoed platform differs…
  EXPECT_EQ(without_platform(a), without_platform(b));  // …and nothing else
  EXPECT_EQ(read_file(dir + "/a/links.csv"), read_file(dir + "/b/links.csv"));
  EXPECT_EQ(nlohmann::json::parse(b)["inputs"]["platform"], "pipegrid platform gen --preset dgx-a100 --nodes 2 --ib-bw 12.5GBps");
  EXPECT_NE(generated.out.find("1f1b on pipegrid platform gen --preset dgx-a100 --nodes 2 --ib-bw 12.5GBps: 16 GPUs"),
            std::string::npos)
      << generated.out;

  // The same keys as simulate's flags, and without --out: the temporary file is gone afterwards and the
  // printed summary is the same.
  const auto flags = run_pipegrid("simulate --preset dgx-a100 --nodes 2 --ib-bw 12.5GBps --pp 2 --dp 8 --microbatches 4 "
                                  "--schedule 1f1b --time-f 0.01 --time-b 0.02 --time-w 0.01 --p2p-bytes 1e8 "
                                  "--trace off --format json");
  ASSERT_EQ(flags.exit_code, 0) << flags.err;
  EXPECT_EQ(nlohmann::json::parse(flags.out), nlohmann::json::parse(b));
}

TEST(GeneratedPlatform, FileAndPresetTogetherIsOneInputError) {
  const std::string dir = fresh_dir("both");
  std::ofstream(dir + "/both.toml") << "[platform]\nfile = \"x.xml\"\npreset = \"dgx-a100\"\nnodes = 2\n" << kJob;
  const auto both = run_pipegrid("run " + dir + "/both.toml");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.err, "pipegrid: error: --platform and --preset: give one of them, not both\n");
  const auto neither = run_pipegrid("simulate --schedule 1f1b --pp 2 --microbatches 4");
  EXPECT_EQ(neither.exit_code, 2);
  EXPECT_EQ(neither.err.rfind("pipegrid: error: --platform or --preset: required by pipegrid simulate", 0), 0u)
      << neither.err;
  const auto shaping_a_file = run_pipegrid("simulate --platform " PIPEGRID_SOURCE_DIR
                                           "/platforms/dgx-a100-2node.xml --ib-bw 12.5GBps --schedule 1f1b --pp 2 "
                                           "--microbatches 4");
  EXPECT_EQ(shaping_a_file.exit_code, 2);
  EXPECT_EQ(shaping_a_file.err.rfind("pipegrid: error: --ib-bw: shapes a generated platform (with --preset)", 0), 0u)
      << shaping_a_file.err;
  // SimGrid would hold all 8 million GPU hosts at ~256 kB each (limits.h): 2.048e12 bytes, refused
  // before anything is generated.
  const auto huge = run_pipegrid("simulate --preset dgx-a100 --nodes 1000000 --schedule 1f1b --pp 2 --microbatches 4");
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_EQ(huge.err.rfind("pipegrid: error: --nodes 1000000: a generated platform of 8000000 GPUs needs ~2.0 TB to "
                           "simulate; the limit on this machine is ",
                           0),
            0u)
      << huge.err;
  const auto no_nodes = run_pipegrid("simulate --preset dgx-a100 --schedule 1f1b --pp 2 --microbatches 4");
  EXPECT_EQ(no_nodes.exit_code, 2);
  EXPECT_EQ(no_nodes.err, "pipegrid: error: --preset dgx-a100: needs --nodes ([platform] nodes), the nodes of 8 GPUs "
                          "to generate\n");
}

TEST(GeneratedPlatform, PathsInsideFilesAreTakenFromTheirFolder) {
  // exp/job.toml names ../data/cluster.xml and ../data/two.csv; run from the filesystem root and from
  // the experiment's own folder, it reads the same files.
  const std::string dir = fresh_dir("relative");
  fs::create_directories(dir + "/exp");
  fs::create_directories(dir + "/data");
  fs::copy_file(PIPEGRID_SOURCE_DIR "/platforms/dgx-a100-1node.xml", dir + "/data/cluster.xml");
  std::ofstream(dir + "/data/two.csv") << "0F0,0F1,0B0,0B1\n";
  std::ofstream(dir + "/exp/job.toml") << "[platform]\nfile = \"../data/cluster.xml\"\n[parallel]\npp = 1\n"
                                          "[sim]\nschedule_file = \"../data/two.csv\"\n[output]\ntrace = \"off\"\n"
                                          "format = \"json\"\n";
  const auto from_root = run_pipegrid("--help >/dev/null; cd / && " PIPEGRID_BINARY " run " + dir + "/exp/job.toml");
  const auto from_folder =
      run_pipegrid("--help >/dev/null; cd " + dir + "/exp && " PIPEGRID_BINARY " run job.toml");
  ASSERT_EQ(from_root.exit_code, 0) << from_root.err;
  ASSERT_EQ(from_folder.exit_code, 0) << from_folder.err;
  // One GPU, F = 1, B = 2 (the explicit defaults), two micro-batches back to back: 2 × (1 + 2) = 6 s.
  EXPECT_EQ(nlohmann::json::parse(from_root.out)["makespan"], 6.0);
  // The echoed paths are relative to the working directory: from the root, the files' full paths
  // without the leading slash; from the folder, the files' own text.
  const nlohmann::json root_inputs = nlohmann::json::parse(from_root.out)["inputs"];
  const nlohmann::json folder_inputs = nlohmann::json::parse(from_folder.out)["inputs"];
  EXPECT_EQ(root_inputs["platform"], fs::path(dir + "/data/cluster.xml").lexically_normal().string().substr(1));
  EXPECT_EQ(root_inputs["schedule"], fs::path(dir + "/data/two.csv").lexically_normal().string().substr(1));
  EXPECT_EQ(folder_inputs["platform"], "../data/cluster.xml");
  EXPECT_EQ(folder_inputs["schedule"], "../data/two.csv");
  EXPECT_EQ(nlohmann::json::parse(from_folder.out)["makespan"], 6.0);

  // A sweep's axis values come from the sweep file's folder; its runs' experiment.toml read back from
  // their own folder to the same files.
  std::ofstream(dir + "/exp/sweep.toml") << "base = \"job.toml\"\n[axes]\n\"platform.file\" = "
                                            "[\"../data/cluster.xml\", \"../../" +
                                                fs::path(dir).filename().string() + "/data/cluster.xml\"]\n";
  const auto sweep = run_pipegrid("--help >/dev/null; cd / && " PIPEGRID_BINARY " sweep " + dir +
                                  "/exp/sweep.toml --out " + dir + "/out --jobs 1");
  ASSERT_EQ(sweep.exit_code, 2) << sweep.err;  // both values name one file: one experiment, refused
  EXPECT_NE(sweep.err.find("are the same experiment"), std::string::npos) << sweep.err;
  std::ofstream(dir + "/exp/sweep.toml") << "base = \"job.toml\"\n[axes]\n\"sim.time_f\" = [1, 2]\n";
  const auto swept = run_pipegrid("--help >/dev/null; cd / && " PIPEGRID_BINARY " sweep " + dir +
                                  "/exp/sweep.toml --out " + dir + "/out --jobs 1");
  ASSERT_EQ(swept.exit_code, 0) << swept.err;
  // The sweep file named relatively from the same directory: the same configurations, the same rows.
  const auto named_relatively = run_pipegrid("--help >/dev/null; cd / && " PIPEGRID_BINARY " sweep " +
                                             dir.substr(1) + "/exp/sweep.toml --out " + dir + "/out2 --jobs 1");
  ASSERT_EQ(named_relatively.exit_code, 0) << named_relatively.err;
  EXPECT_EQ(read_file(dir + "/out2/results.csv"), read_file(dir + "/out/results.csv"));
  for (const auto& run : fs::directory_iterator(dir + "/out/runs")) {
    const auto again = run_pipegrid("--help >/dev/null; cd / && " PIPEGRID_BINARY " run " +
                                    (run.path() / "experiment.toml").string() + " --format json");
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(again.out, read_file((run.path() / "stdout.json").string()));
  }
}

TEST(GeneratedPlatform, AnOptionWithoutEffectSaysWhy) {
  const auto one_leaf = run_pipegrid("platform gen --preset dgx-a100 --nodes 2 --oversubscription 4");
  ASSERT_EQ(one_leaf.exit_code, 0);
  // dgx-a100 puts 20 nodes under a leaf (platforms/README.md): two nodes never reach the spine.
  EXPECT_EQ(one_leaf.err, "pipegrid: warning: --oversubscription 4: no effect: no spine: all 2 nodes fit one leaf "
                          "group of 20\n");
  const auto spine = run_pipegrid("platform gen --preset dgx-a100 --nodes 21 --oversubscription 4 >/dev/null");
  EXPECT_EQ(spine.err, "");  // node 20 is in the second leaf group: the spine carries its traffic
  const auto one_node = run_pipegrid("platform gen --preset dgx-a100 --nodes 1 --ib-bw 12.5GBps --nics-per-node 2");
  EXPECT_EQ(one_node.err,
            "pipegrid: warning: --ib-bw 12.5GBps: no effect: one node: its GPUs talk over NVLink only\n"
            "pipegrid: warning: --nics-per-node 2: no effect: one node: its GPUs talk over NVLink only\n");
  const auto per_leaf = run_pipegrid("platform gen --preset dgx-a100 --nodes 4 --nodes-per-leaf 8 >/dev/null");
  EXPECT_EQ(per_leaf.err, "pipegrid: warning: --nodes-per-leaf 8: no effect: all 4 nodes fit one leaf group with it "
                          "and with the preset's 20\n");
  EXPECT_EQ(run_pipegrid("platform gen --preset dgx-a100 --nodes 4 --nodes-per-leaf 2 >/dev/null").err, "");

  // The same warning from a run that generates the platform, and the option indeed changes nothing.
  const std::string dir = fresh_dir("no-effect");
  std::ofstream(dir + "/plain.toml") << "[platform]\npreset = \"dgx-a100\"\nnodes = 2\n" << kJob;
  std::ofstream(dir + "/os4.toml") << "[platform]\npreset = \"dgx-a100\"\nnodes = 2\noversubscription = 4\n" << kJob;
  const auto plain = run_pipegrid("run " + dir + "/plain.toml --format json");
  const auto os4 = run_pipegrid("run " + dir + "/os4.toml --format json");
  ASSERT_EQ(os4.exit_code, 0) << os4.err;
  EXPECT_EQ(os4.err, one_leaf.err);
  EXPECT_EQ(without_platform(os4.out), without_platform(plain.out));
}

TEST(GeneratedPlatform, SweepOverInfinibandBandwidthNeverServesAnotherPlatformsRow) {
  const std::string dir = fresh_dir("sweep");
  std::ofstream(dir + "/job.toml") << "[platform]\npreset = \"dgx-a100\"\nnodes = 2\n" << kJob;
  std::ofstream(dir + "/sweep.toml") << "base = \"job.toml\"\n[axes]\n\"platform.ib_bw\" = [\"25GBps\", \"6.25GBps\"]\n";
  const std::string sweep = "sweep " + dir + "/sweep.toml --out " + dir + "/out --jobs 1";
  const auto first = run_pipegrid(sweep);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string results = read_file(dir + "/out/results.csv");
  std::istringstream lines(results);
  std::string header, fast, slow;
  std::getline(lines, header);
  std::getline(lines, fast);
  std::getline(lines, slow);
  EXPECT_EQ(header.rfind("id,platform.ib_bw,status,", 0), 0u) << header;
  const std::string fast_id = fast.substr(0, fast.find(','));
  const double fast_makespan = std::stod(fast.substr(fast.find("ok,,") + 4));
  const double slow_makespan = std::stod(slow.substr(slow.find("ok,,") + 4));
  // 1F1B on two ranks, m = 4, transfer time c: rank 0 runs F0 F1 B0 F2 B1 F3 B2 B3, rank 1 F0 B0 F1 B1
  // F2 B2 F3 B3. Following each op's inputs: F0 ends at f, rank 1's F0 starts at f + c, B0 ends at
  // 2f + b + c, rank 0's B0 ends at 2f + 2b + 2c, F2 reaches rank 1 at 3f + 2b + 3c (after rank 1's B1
  // at 3f + 2b + c: it waits), rank 1's B2 ends at 4f + 3b + 3c, rank 0's B2 at 4f + 4b + 4c, F3 on
  // rank 1 then B3 end at 5f + 4b + 3c, and rank 0's B3 at 5f + 5b + 4c: the makespan. c = latency +
  // 1e8 bytes / bandwidth, so the two rows differ by 4 × 1e8 × (1 / 6.25e9 − 1 / 25e9) = 0.048 s.
  EXPECT_NEAR(slow_makespan - fast_makespan, 4 * 1e8 * (1 / 6.25e9 - 1 / 25e9), 1e-9) << results;
  EXPECT_EQ(read_file(dir + "/out/runs/" + fast_id + "/platform.xml"),
            run_pipegrid("platform gen --preset dgx-a100 --nodes 2 --ib-bw 25GBps").out);

  const auto again = run_pipegrid(sweep);
  EXPECT_NE(again.err.find("2 already done, 0 ran"), std::string::npos) << again.err;
  // A generator that writes other XML for the same options (a new pipegrid of the same version) is
  // another platform: the row recorded with the old XML's hash is rerun.
  const std::string inputs = dir + "/out/runs/" + fast_id + "/inputs.json";
  nlohmann::json recorded = nlohmann::json::parse(read_file(inputs));
  ASSERT_EQ(recorded["files"].size(), 1u);
  EXPECT_EQ(recorded["files"][0]["path"], "generated platform.xml");
  recorded["files"][0]["hash"] = "0000000000000000";
  std::ofstream(inputs) << recorded.dump(2);
  const auto rerun = run_pipegrid(sweep);
  EXPECT_NE(rerun.err.find("1 already done, 1 ran"), std::string::npos) << rerun.err;
  EXPECT_NE(rerun.err.find("generated platform.xml changed (1)"), std::string::npos) << rerun.err;
  EXPECT_EQ(read_file(dir + "/out/results.csv"), results);
}


// The per-node zone layout carries every route's links (zone_layouts_test), so a job that crosses
// leaf groups — DP rings and pipeline sends between the four nodes, two per leaf group, through the
// spine — takes exactly as long on it as on the flat file of the same cluster.
TEST(GeneratedPlatform, PerNodeZonesRunAJobAsTheFlatFile) {
  const std::string cluster = "--preset dgx-a100 --nodes 4 --nics-per-node 1 --nodes-per-leaf 2";
  const std::string job = " --schedule 1f1b --pp 2 --dp 2 --tp 8 --microbatches 8 --model gpt-7.5b --trace off --format json";
  const auto flat = run_pipegrid("simulate " + cluster + job);
  const auto zones = run_pipegrid("simulate " + cluster + " --zones per-node" + job);
  ASSERT_EQ(flat.exit_code, 0) << flat.err;
  ASSERT_EQ(zones.exit_code, 0) << zones.err;
  const double flat_makespan = nlohmann::json::parse(flat.out)["makespan"];
  const double zones_makespan = nlohmann::json::parse(zones.out)["makespan"];
  EXPECT_GT(flat_makespan, 0);
  EXPECT_NEAR(zones_makespan, flat_makespan, 1e-9 * flat_makespan);
}

}  // namespace
}  // namespace pipegrid
