// read_platform's errors: one line, the file and the line of the element at fault, and the rule.
// Each test edits one line of a small platform whose line numbers are fixed below.
#include <gtest/gtest.h>

#include "platform_test_support.h"
#include "sim/platform/platform_reader.h"

namespace pipegrid::platform {
namespace {

using pipegrid::test_support::error_of;
using test_support::replace_once;
using test_support::write_temp_file;

// Line numbers on the left, for the expectations below.
const std::string kTiny =
    /*  1 */ "<?xml version='1.0'?>\n"
    /*  2 */ "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    /*  3 */ "<platform version=\"4.1\">\n"
    /*  4 */ "  <zone id=\"tiny\" routing=\"Full\">\n"
    /*  5 */ "    <host id=\"gpu0\" speed=\"1Tf\">\n"
    /*  6 */ "      <prop id=\"role\" value=\"gpu\"/><prop id=\"node\" value=\"0\"/>\n"
    /*  7 */ "      <prop id=\"gpu\" value=\"0\"/><prop id=\"memory\" value=\"1000\"/>\n"
    /*  8 */ "    </host>\n"
    /*  9 */ "    <host id=\"gpu1\" speed=\"1Tf\">\n"
    /* 10 */ "      <prop id=\"role\" value=\"gpu\"/><prop id=\"node\" value=\"0\"/>\n"
    /* 11 */ "      <prop id=\"gpu\" value=\"1\"/><prop id=\"memory\" value=\"1000\"/>\n"
    /* 12 */ "    </host>\n"
    /* 13 */ "    <link id=\"wire\" bandwidth=\"1GBps\" latency=\"1us\" sharing_policy=\"SPLITDUPLEX\"/>\n"
    /* 14 */ "    <route src=\"gpu0\" dst=\"gpu1\">\n"
    /* 15 */ "      <link_ctn id=\"wire\" direction=\"UP\"/>\n"
    /* 16 */ "    </route>\n"
    /* 17 */ "  </zone>\n"
    /* 18 */ "</platform>\n";

// The error of reading kTiny with one edit, from a file called tiny.xml.
std::string error_after(const std::string& from, const std::string& to) {
  const std::string path = write_temp_file("tiny.xml", replace_once(kTiny, from, to));
  const std::string error = error_of([&] { read_platform(path); });
  return error.starts_with(path) ? "tiny.xml" + error.substr(path.size()) : error;
}

TEST(ReaderErrors, TheTinyPlatformIsFine) { EXPECT_EQ(error_after("Full", "Full"), ""); }

TEST(ReaderErrors, MissingFile) {
  EXPECT_EQ(error_of([] { read_platform("/no/such/platform.xml"); }), "/no/such/platform.xml: cannot open the file");
}

TEST(ReaderErrors, MalformedXmlNamesItsLine) {
  EXPECT_EQ(error_after("    </route>\n", "    </rout>\n"), "tiny.xml:16: malformed XML: Start-end tags mismatch");
  EXPECT_EQ(error_after("bandwidth=\"1GBps\"", "bandwidth=1GBps"),
            "tiny.xml:13: malformed XML: Error parsing element attribute");
}

TEST(ReaderErrors, WrongRootOrVersion) {
  EXPECT_EQ(error_after("<platform version=\"4.1\">", "<platform version=\"3\">"),
            "tiny.xml:3: the root element must be <platform version=\"4.1\">, got <platform version=\"3\">");
}

TEST(ReaderErrors, HostSpeed) {
  EXPECT_EQ(error_after("\"gpu1\" speed=\"1Tf\"", "\"gpu1\" speed=\"0f\""),
            "tiny.xml:9: host gpu1: speed must be positive, got 0f");
  EXPECT_EQ(error_after("\"gpu1\" speed=\"1Tf\"", "\"gpu1\" speed=\"1 TFLOPS\""),
            "tiny.xml:9: host gpu1: speed must be a number with a SimGrid unit such as 312Tf, got 1 TFLOPS");
}

TEST(ReaderErrors, GpuProperties) {
  EXPECT_EQ(error_after("\"node\" value=\"0\"/>\n      <prop id=\"gpu\" value=\"1\"",
                        "\"node\" value=\"-1\"/>\n      <prop id=\"gpu\" value=\"1\""),
            "tiny.xml:10: host gpu1: property node must be a non-negative integer, got -1");
  EXPECT_EQ(error_after("\"1\"/><prop id=\"memory\" value=\"1000\"", "\"1\"/><prop id=\"memory\" value=\"80 GB\""),
            "tiny.xml:11: host gpu1: property memory must be a positive size in SimGrid's units such as 80GiB, 80GB or "
            "1e10 (bytes), got 80 GB");
  EXPECT_EQ(error_after("\"1\"/><prop id=\"memory\" value=\"1000\"", "\"1\"/><prop id=\"memory\" value=\"0B\""),
            "tiny.xml:11: host gpu1: property memory must be a positive size in SimGrid's units such as 80GiB, 80GB or "
            "1e10 (bytes), got 0B");
  EXPECT_EQ(error_after("\"1\"/><prop id=\"memory\" value=\"1000\"/>", "\"1\"/>"),
            "tiny.xml:9: host gpu1: a GPU host (role gpu) needs property memory");
  EXPECT_EQ(error_after("<prop id=\"gpu\" value=\"1\"/>", "<prop id=\"gpu\" value=\"0\"/>"),
            "tiny.xml:9: host gpu1: node 0 gpu 0 is already host gpu0");
}

TEST(ReaderErrors, LinkBandwidth) {
  EXPECT_EQ(error_after("bandwidth=\"1GBps\"", "bandwidth=\"0GBps\""),
            "tiny.xml:13: link wire: bandwidth must be positive, got 0GBps");
  EXPECT_EQ(error_after("bandwidth=\"1GBps\"", "bandwidth=\"-1GBps\""),
            "tiny.xml:13: link wire: bandwidth must be positive, got -1GBps");
  EXPECT_EQ(error_after("bandwidth=\"1GBps\"", "bandwidth=\"1GB/s\""),
            "tiny.xml:13: link wire: bandwidth must be a number with a SimGrid unit such as 25GBps or 200Gbps, got "
            "1GB/s");
  EXPECT_EQ(error_after("bandwidth=\"1GBps\" ", ""),
            "tiny.xml:13: link wire: bandwidth must be a number with a SimGrid unit such as 25GBps or 200Gbps, got "
            "nothing");
}

TEST(ReaderErrors, LinkLatency) {
  EXPECT_EQ(error_after("latency=\"1us\"", "latency=\"-1us\""),
            "tiny.xml:13: link wire: latency must not be negative, got -1us");
  EXPECT_EQ(error_after("latency=\"1us\"", "latency=\"1 us\""),
            "tiny.xml:13: link wire: latency must be a number with a SimGrid unit such as 1us or 500ns, got 1 us");
}

TEST(ReaderErrors, LinkSharingPolicy) {
  EXPECT_EQ(error_after("SPLITDUPLEX", "WIFI"),
            "tiny.xml:13: link wire: sharing_policy WIFI: pipegrid does not simulate Wi-Fi links (their rate depends on "
            "each station's)");
  EXPECT_EQ(error_after("SPLITDUPLEX", "HALFDUPLEX"),
            "tiny.xml:13: link wire: sharing_policy must be SHARED, SPLITDUPLEX or FATPIPE, got HALFDUPLEX");
}

TEST(ReaderErrors, RouteThroughAnUnknownLink) {
  EXPECT_EQ(error_after("<link_ctn id=\"wire\"", "<link_ctn id=\"cable\""),
            "tiny.xml:15: route gpu0 -> gpu1: no link named cable");
}

TEST(ReaderErrors, RouteToAnUnknownNetpoint) {
  EXPECT_EQ(error_after("dst=\"gpu1\"", "dst=\"gpu7\""), "tiny.xml:14: route gpu0 -> gpu7: no host or router gpu7");
}

TEST(ReaderErrors, RouteDirections) {
  EXPECT_EQ(error_after(" direction=\"UP\"", ""),
            "tiny.xml:15: route gpu0 -> gpu1: link wire is SPLITDUPLEX and needs direction UP or DOWN");
  EXPECT_EQ(error_after("sharing_policy=\"SPLITDUPLEX\"", "sharing_policy=\"SHARED\""),
            "tiny.xml:15: route gpu0 -> gpu1: link wire is SHARED and has no direction UP");
}

TEST(ReaderErrors, RouteDeclaredTwice) {
  // Symmetrical: the route from gpu0 to gpu1 is also the one back.
  EXPECT_EQ(error_after("    </route>\n", "    </route>\n    <route src=\"gpu1\" dst=\"gpu0\"/>\n"),
            "tiny.xml:17: route gpu1 -> gpu0: a route from gpu1 to gpu0 is already declared at line 14");
}

TEST(ReaderErrors, DuplicateIds) {
  EXPECT_EQ(error_after("<host id=\"gpu1\"", "<host id=\"gpu0\""), "tiny.xml:9: duplicate id gpu0, first declared at line 5");
}

// Without any role=gpu, every host is a GPU (gpu_inference.h); with no host at all there is none.
TEST(ReaderErrors, NoGpuHosts) {
  std::string text = kTiny;
  const std::string role = "<prop id=\"role\" value=\"gpu\"/>";
  for (auto at = text.find(role); at != std::string::npos; at = text.find(role)) text.erase(at, role.size());
  EXPECT_EQ(read_platform(write_temp_file("cpus.xml", text)).gpus.size(), 2u);
  const std::string path = write_temp_file(
      "empty.xml", "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\"/>\n</platform>\n");
  EXPECT_EQ(error_of([&] { read_platform(path); }),
            path + ": no GPU hosts: a GPU is a host with <prop id=\"role\" value=\"gpu\"/> (or any host, when none has "
                   "that prop)");
}

TEST(ReaderErrors, ElementsPipegridDoesNotRead) {
  EXPECT_EQ(error_after("    <link id", "    <backbone id=\"bb\" bandwidth=\"1GBps\" latency=\"0\"/>\n    <link id"),
            "tiny.xml:13: <backbone> belongs in a zone routed Cluster, not Full");
  EXPECT_EQ(error_after("    <link id", "    <storage_type id=\"st\" size=\"1TB\"/>\n    <link id"),
            "tiny.xml:13: <storage_type> is not read by pipegrid: declare hosts, routers, links and routes "
            "in zones, or clusters (platforms/README.md)");
}

}  // namespace
}  // namespace pipegrid::platform
