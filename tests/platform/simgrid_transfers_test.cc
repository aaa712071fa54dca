// Hand computations on the checked-in two-node DGX A100 platform, run in SimGrid: a transfer alone
// takes its route's latency + bytes / bandwidth of its narrowest link (CM02 without factors), flows
// that meet on a link share it equally, and an edit of the file changes exactly what it should.
#include <gtest/gtest.h>

#include "platform_test_support.h"
#include "simgrid_flows.h"

namespace pipegrid::platform {
namespace {

using test_support::compute_time;
using test_support::finish_times;
using test_support::generated_xml;
using test_support::kPlatforms;
using test_support::read_text;
using test_support::replace_once;
using test_support::write_temp_file;

const std::string kTwoNodes = kPlatforms + "/dgx-a100-2node.xml";
constexpr double kGB = 1e9;
// Two PCIe links (GPU, NIC) and an IB port on each side; the NVLink ports (the NVSwitch adds 0).
constexpr double kBetweenNodes = 2 * (0.25e-6 + 0.25e-6 + 1e-6);
constexpr double kInsideNode = 0.5e-6 + 0.5e-6;

void expect_time(double simulated, double expected) { EXPECT_NEAR(simulated, expected, 1e-9 * expected); }

TEST(SimGridTransfers, OneTransferBetweenNodes) {
  expect_time(finish_times(kTwoNodes, {{"node0-gpu0", "node1-gpu0", kGB}})[0], kBetweenNodes + kGB / 25e9);
}

TEST(SimGridTransfers, OneTransferInsideANode) {
  expect_time(finish_times(kTwoNodes, {{"node1-gpu2", "node1-gpu6", kGB}})[0], kInsideNode + kGB / 300e9);
}

TEST(SimGridTransfers, TwoFlowsThroughOneNicEachGetHalfOfIt) {
  // Same NIC (node0-nic0, 25 GB/s), different routes: one on rail 0, one across the spine. Equal
  // latencies make CM02 share equally (presets.h, kLeafUplinkLatency).
  const auto times = finish_times(kTwoNodes, {{"node0-gpu0", "node1-gpu0", kGB}, {"node0-gpu0", "node1-gpu1", kGB}});
  expect_time(times[0], kBetweenNodes + kGB / 12.5e9);
  expect_time(times[1], kBetweenNodes + kGB / 12.5e9);
}

TEST(SimGridTransfers, OppositeDirectionsDoNotShare) {
  // SPLITDUPLEX: each direction of a port has its full bandwidth.
  const auto times = finish_times(kTwoNodes, {{"node0-gpu0", "node1-gpu0", kGB}, {"node1-gpu0", "node0-gpu0", kGB}});
  expect_time(times[0], kBetweenNodes + kGB / 25e9);
  expect_time(times[1], kBetweenNodes + kGB / 25e9);
}

TEST(SimGridTransfers, HalvingALinkInTheFileDoublesTheTransfer) {
  const std::string edited = write_temp_file(
      "half-ib.xml", replace_once(read_text(kTwoNodes), R"(<link id="node0-nic0-ib" bandwidth="25GBps")",
                                  R"(<link id="node0-nic0-ib" bandwidth="12.5GBps")"));
  expect_time(finish_times(edited, {{"node0-gpu0", "node1-gpu0", kGB}})[0], kBetweenNodes + 2 * (kGB / 25e9));
}

TEST(SimGridTransfers, SlowingOneGpuInTheFileSlowsItsCompute) {
  const std::string edited =
      write_temp_file("slow-gpu.xml", replace_once(read_text(kTwoNodes), R"(<host id="node1-gpu5" speed="312Tf">)",
                                                   R"(<host id="node1-gpu5" speed="156Tf">)"));
  expect_time(compute_time(edited, "node1-gpu5", 312e12), 2.0);
}

TEST(SimGridTransfers, AnOversubscribedUplinkLimitsCrossRailFlows) {
  // Two nodes at 4:1: each leaf's uplink is 2 × 25 GB/s / 4 = 12.5 GB/s, narrower than the ports.
  ClusterOptions options;
  options.oversubscription = 4;
  const std::string path = write_temp_file("oversubscribed.xml", generated_xml("dgx-a100", 2, options));
  expect_time(finish_times(path, {{"node0-gpu0", "node1-gpu1", kGB}})[0], kBetweenNodes + kGB / 12.5e9);
}

}  // namespace
}  // namespace pipegrid::platform
