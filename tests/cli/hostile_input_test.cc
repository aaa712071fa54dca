// Inputs a hostile or careless user gives, each of which once aborted, crashed, grew without bound or
// silently computed nonsense. Now each is refused with one line naming the input and the rule, exit
// code 2, before SimGrid starts; and whatever else escapes a command is an internal error, exit 70.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <stdexcept>

#include "command_runner.h"
#include "common/exit_codes.h"
#include "common/input_error.h"
#include "sim/cli/app.h"

namespace pipegrid {
namespace {

using test_support::run_pipegrid;

const std::string kStar = PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml";
const std::string kJob = " --schedule 1f1b --pp 2 --microbatches 4";

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "hostile-" + std::to_string(getpid()) + "-" + name;
  std::ofstream(path) << text;
  return path;
}

// The star platform with one edit.
std::string star_with(const std::string& name, const std::string& from, const std::string& to) {
  std::string text = test_support::read_file(kStar);
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return temp_file(name, text.replace(at, from.size(), to));
}

void expect_refused(const std::string& args, const std::string& message) {
  const auto r = run_pipegrid(args);
  EXPECT_EQ(r.exit_code, 2) << args;
  EXPECT_EQ(r.out, "") << args;
  EXPECT_EQ(r.err, "pipegrid: error: " + message + "\n") << args;
}

TEST(HostileInput, ACsvNamingAHugeMicrobatch) {
  const std::string csv = temp_file("big.csv", "0F2147483647\n");
  expect_refused("check " + csv, csv + ": it names stages 0-0 and micro-batches 0-2147483647, 2147483648 pairs that "
                                       "each need a forward and a backward, but holds 1 action(s)");
}

TEST(HostileInput, AZoneRoutingSimGridDoesNotKnow) {
  const std::string xml = star_with("bogus.xml", "routing=\"DijkstraCache\"", "routing=\"Bogus\"");
  expect_refused("simulate --platform " + xml + kJob,
                 xml + ":10: zone star: routing must be Full, Floyd, Dijkstra, DijkstraCache, Cluster, None, Vivaldi or "
                       "Wifi, got Bogus");
}

TEST(HostileInput, ANetworkModelSimGridDoesNotKnow) {
  const std::string xml = star_with("model.xml", "value=\"CM02\"", "value=\"Vegas\"");
  expect_refused("simulate --platform " + xml + kJob,
                 xml + ":6: <config> network/model = Vegas: must be one of LV08, Constant, SMPI, IB, CM02");
}

TEST(HostileInput, ProfilesSimGridWouldAbortOnOrPipegridWouldIgnore) {
  temp_file("speed.txt", "0 1\n0.5 0.5\n");  // no LOOPAFTER: SimGrid's trace-integrated CPU model asserts on it
  const std::string speed = "hostile-" + std::to_string(getpid()) + "-speed.txt";
  std::string xml = star_with("speed.xml", "<host id=\"gpu0\" speed=\"1Tf\">",
                              "<host id=\"gpu0\" speed=\"1Tf\" speed_file=\"" + speed + "\">");
  // The executor then runs SimGrid's default CPU model, which takes any speed profile.
  const auto slowed = run_pipegrid("simulate --platform " + xml + kJob);
  EXPECT_EQ(slowed.exit_code, 0) << slowed.err;
  xml = star_with("state.xml", "<host id=\"gpu1\" speed=\"1Tf\">",
                  "<host id=\"gpu1\" speed=\"1Tf\" state_file=\"" + speed + "\">");
  expect_refused("simulate --platform " + xml + kJob,
                 xml + ":12: host gpu1: state_file " + speed + ": line 2: a state must be 1 (on) or 0 (off)");
  xml = star_with("link-state.xml", "<link id=\"gpu0-port\" ", "<link id=\"gpu0-port\" state_file=\"" + speed + "\" ");
  expect_refused("simulate --platform " + xml + kJob,
                 xml + ":16: link gpu0-port: state_file: SimGrid 3.32 aborts on the state profile of a SPLITDUPLEX "
                       "link; give a state_file to SHARED or FATPIPE links");
  temp_file("unsorted.txt", "0 1e9\n2 5e8\n1 1e9\n");
  xml = star_with("unsorted.xml", "<link id=\"gpu0-port\" ",
                  "<link id=\"gpu0-port\" bandwidth_file=\"hostile-" + std::to_string(getpid()) + "-unsorted.txt\" ");
  expect_refused("simulate --platform " + xml + kJob,
                 xml + ":16: link gpu0-port: bandwidth_file hostile-" + std::to_string(getpid()) +
                     "-unsorted.txt: line 3: dates must not decrease, but 1 follows 2");
}

TEST(HostileInput, AFactorThatIsNotFinite) {
  expect_refused("simulate --platform " + kStar + kJob + " --stage-cost-scale 0=inf",
                 "--stage-cost-scale 0=inf: stage 0: the factor inf must be positive and at most 1e+06");
}

TEST(HostileInput, ParallelSizesWhoseProductOverflowsAnInt) {
  // 65536 × 2 × 65536 = 2^33 GPUs: counted in an int it wrapped to 0 and placed nothing.
  expect_refused("simulate --platform " + kStar + kJob + " --tp 65536 --dp 65536",
                 "--tp 65536 --pp 2 --dp 65536: needs 8589934592 GPUs, the platform has 4");
}

TEST(HostileInput, AScheduleTooLargeForThisMachine) {
  // 1F1B: p × m × 2 actions = 3.2e13, at 80 bytes each 2.56e15 bytes. The limit depends on the machine.
  const auto r = run_pipegrid("schedule --schedule 1f1b --pp 4000000 --microbatches 4000000");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(std::regex_match(r.err, std::regex("pipegrid: error: --pp 4000000 --microbatches 4000000: 3.2e\\+13 "
                                                 "actions need ~2.6 PB; the limit on this machine is [0-9.e+]+ actions "
                                                 "\\(~[0-9.]+ [kMGTP]?B\\)\n")))
      << r.err;
}

TEST(HostileInput, NumbersThatAreNotFinite) {
  expect_refused("simulate --platform " + kStar + kJob + " --p2p-bytes inf", "--p2p-bytes inf: must be a finite number");
  expect_refused("simulate --platform " + kStar + kJob + " --p2p-bytes nan", "--p2p-bytes nan: must be a finite number");
  expect_refused("simulate --platform " + kStar + kJob + " --p2p-bytes 1e400", "--p2p-bytes 1e400: must be a finite number");
  expect_refused("sweep " PIPEGRID_TEST_DATA "/sweeps/twelve.toml --out " + ::testing::TempDir() + "x --timeout nan",
                 "--timeout nan: must be a finite number");
  expect_refused("schedule" + kJob + " --time-f 1e300", "--time-f 1e300: must be at most 1000000000");
}

TEST(HostileInput, AnOpThatWouldNeverEnd) {
  // 1e9 s of forward at the median GPU's 1 Tf/s is 1e21 FLOPs (the 2 s backward adds 2e12): on a GPU of
  // 1 kf/s, 1e18 s, past what SimGrid's clock can add up.
  const std::string xml = star_with("slow.xml", "<host id=\"gpu1\" speed=\"1Tf\">", "<host id=\"gpu1\" speed=\"1kf\">");
  expect_refused("simulate --platform " + xml + kJob + " --time-f 1000000000",
                 "pp rank 1: an op of up to 1e+21 FLOPs would take 1e+18 s on gpu1 (1e+03 flop/s); pipegrid refuses ops "
                 "longer than 1e+12 s");
}

TEST(HostileInput, AJobNeedingARouteThePlatformDoesNotHave) {
  // Full routing does not chain the star's GPU-to-switch routes: SimGrid would die at the first send.
  const std::string full = star_with("full.xml", "routing=\"DijkstraCache\"", "routing=\"Full\"");
  expect_refused("simulate --platform " + full + kJob,
                 full + ": no route from gpu0 to gpu1, which pipeline transfers between pp ranks 0 and 1 need");
  // Floyd chains them, as DijkstraCache does.
  const std::string floyd = star_with("floyd.xml", "routing=\"DijkstraCache\"", "routing=\"Floyd\"");
  EXPECT_EQ(run_pipegrid("simulate --platform " + floyd + kJob).exit_code, 0);
}

TEST(HostileInput, ATomlKeyOfTensOfThousandsOfParts) {
  // toml++ 3.3 recursed once per part and overflowed the stack (SIGSEGV); the TOML screen stops at 64
  // levels (input/toml_screen.h), naming the line and column of the first part past them.
  std::string key = "a";
  for (int k = 1; k < 50'000; ++k) key += ".a";
  const std::string rule =
      "nested deeper than 64 levels (each part of a dotted key or [table] header, each array and inline table is one)";
  const std::string dotted = temp_file("dotted.toml", "[sim]\ncommand = \"schedule\"\n" + key + " = 1\n");
  expect_refused("run " + dotted, dotted + ":3:127: " + rule);  // under [sim], level 1
  const std::string header = temp_file("header.toml", "[" + key + "]\n");
  expect_refused("run " + header, header + ":1:130: " + rule);
  expect_refused("sweep " + header + " --out " + ::testing::TempDir() + "deep-sweep", header + ":1:130: " + rule);
  // Inline tables and arrays: toml++ stops at 256 by itself, pipegrid's screen at 64 first.
  std::string tables = "a = ";
  for (int k = 0; k < 100'000; ++k) tables += "{b = ";
  const std::string inline_tables = temp_file("inline.toml", tables + "1\n");
  expect_refused("run " + inline_tables, inline_tables + ":1:" + std::to_string(4 + 63 * 5 + 2) + ": " + rule);
  const std::string arrays = temp_file("arrays.toml", "a = " + std::string(100'000, '[') + "\n");
  expect_refused("run " + arrays, arrays + ":1:69: " + rule);
}

// What is not bad input but escapes a command anyway: exit 70 and one line, never std::terminate.
TEST(HostileInput, AnythingElseThatEscapesIsAnInternalError) {
  testing::internal::CaptureStderr();
  const int logic = cli::guarded([]() -> int { throw std::logic_error("a broken invariant"); });
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "pipegrid: internal error: a broken invariant\n");
  EXPECT_EQ(logic, kExitInternalError);
  testing::internal::CaptureStderr();
  const int input = cli::guarded([]() -> int { throw InputError("--tp 0: must be at least 1"); });
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "pipegrid: error: --tp 0: must be at least 1\n");
  EXPECT_EQ(input, kExitInputError);
  testing::internal::CaptureStderr();
  const int unknown = cli::guarded([]() -> int { throw 42; });
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "pipegrid: internal error: an exception of unknown type\n");
  EXPECT_EQ(unknown, kExitInternalError);
}

}  // namespace
}  // namespace pipegrid
