// The four files in platforms/ are what `pipegrid platform gen` writes today, byte for byte: the
// commands in platforms/README.md regenerate them, and this test fails when the two drift apart.
#include <gtest/gtest.h>

#include "platform_test_support.h"
#include "sim/platform/platform_reader.h"

namespace pipegrid::platform {
namespace {

using test_support::generated_xml;
using test_support::kPlatforms;
using test_support::read_text;

TEST(CheckedInPlatforms, DgxA100OneNode) {
  EXPECT_EQ(read_text(kPlatforms + "/dgx-a100-1node.xml"), generated_xml("dgx-a100", 1));
}

TEST(CheckedInPlatforms, DgxA100TwoNodes) {
  EXPECT_EQ(read_text(kPlatforms + "/dgx-a100-2node.xml"), generated_xml("dgx-a100", 2));
}

TEST(CheckedInPlatforms, SuperPodA100Of384Nodes) {
  // Megatron-LM's 1T-parameter run: 3072 A100 GPUs.
  const std::string path = kPlatforms + "/superpod-a100-384node.xml";
  EXPECT_EQ(read_text(path), generated_xml("dgx-a100", 384));
  const PlatformFacts facts = read_platform(path);
  EXPECT_EQ(facts.gpus.size(), 3072u);
  EXPECT_EQ(facts.nodes, 384);
}

TEST(CheckedInPlatforms, H800Of256Nodes) {
  // DeepSeek-V3's 2048 H800 GPUs.
  const std::string path = kPlatforms + "/h800-256node.xml";
  EXPECT_EQ(read_text(path), generated_xml("h800", 256));
  const PlatformFacts facts = read_platform(path);
  EXPECT_EQ(facts.gpus.size(), 2048u);
  EXPECT_EQ(facts.nodes, 256);
}

}  // namespace
}  // namespace pipegrid::platform
