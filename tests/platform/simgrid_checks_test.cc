// What read_platform checks on SimGrid's behalf, before SimGrid sees the file: zone routings, <config>
// settings, profile files (as SimGrid 3.32 reads them: src/surf/sg_platf.cpp,
// src/kernel/resource/profile/ProfileBuilder.cpp), and which hosts SimGrid will be able to route.
// Each case is one a SimGrid 3.32 program was seen to abort on, or to run with a value it ignores.
#include <gtest/gtest.h>

#include "platform_test_support.h"
#include "sim/platform/platform_reader.h"
#include "sim/platform/profile_check.h"
#include "sim/platform/route_reach.h"
#include "sim/platform/simgrid_config.h"

namespace pipegrid::platform {
namespace {

using pipegrid::test_support::error_of;
using test_support::replace_once;
using test_support::temp_dir;
using test_support::write_temp_file;

// Line numbers on the left, for the expectations below.
const std::string kPlatform =
    /*  1 */ "<?xml version='1.0'?>\n"
    /*  2 */ "<platform version=\"4.1\">\n"
    /*  3 */ "  <config><prop id=\"network/model\" value=\"CM02\"/></config>\n"
    /*  4 */ "  <zone id=\"z\" routing=\"Floyd\">\n"
    /*  5 */ "    <host id=\"gpu0\" speed=\"1Tf\"><prop id=\"role\" value=\"gpu\"/><prop id=\"node\" value=\"0\"/>"
    "<prop id=\"gpu\" value=\"0\"/><prop id=\"memory\" value=\"1000\"/></host>\n"
    /*  6 */ "    <host id=\"gpu1\" speed=\"1Tf\"><prop id=\"role\" value=\"gpu\"/><prop id=\"node\" value=\"0\"/>"
    "<prop id=\"gpu\" value=\"1\"/><prop id=\"memory\" value=\"1000\"/></host>\n"
    /*  7 */ "    <host id=\"gpu2\" speed=\"1Tf\"><prop id=\"role\" value=\"gpu\"/><prop id=\"node\" value=\"0\"/>"
    "<prop id=\"gpu\" value=\"2\"/><prop id=\"memory\" value=\"1000\"/></host>\n"
    /*  8 */ "    <router id=\"switch\"/>\n"
    /*  9 */ "    <link id=\"a\" bandwidth=\"1GBps\" latency=\"1us\" sharing_policy=\"SHARED\"/>\n"
    /* 10 */ "    <link id=\"b\" bandwidth=\"1GBps\" latency=\"1us\" sharing_policy=\"SHARED\"/>\n"
    /* 11 */ "    <route src=\"gpu0\" dst=\"switch\"><link_ctn id=\"a\"/></route>\n"
    /* 12 */ "    <route src=\"gpu1\" dst=\"switch\"><link_ctn id=\"b\"/></route>\n"
    /* 13 */ "  </zone>\n"
    /* 14 */ "</platform>\n";

std::string error_after(const std::string& from, const std::string& to) {
  const std::string path = write_temp_file("p.xml", replace_once(kPlatform, from, to));
  const std::string error = error_of([&] { read_platform(path); });
  return error.starts_with(path) ? "p.xml" + error.substr(path.size()) : error;
}

TEST(SimGridChecks, ZoneRoutingIsOneSimGridHasAndPipegridReads) {
  EXPECT_EQ(error_after("Floyd", "Floyd"), "");
  // SimGrid compares routings without case: so does the check.
  EXPECT_EQ(error_after("routing=\"Floyd\"", "routing=\"dijkstracache\""), "");
  EXPECT_EQ(error_after("routing=\"Floyd\"", "routing=\"Bogus\""),
            "p.xml:4: zone z: routing must be Full, Floyd, Dijkstra, DijkstraCache, Cluster, None, Vivaldi or Wifi, got "
            "Bogus");
  EXPECT_EQ(error_after("routing=\"Floyd\"", "routing=\"\""),
            "p.xml:4: zone z: routing must be Full, Floyd, Dijkstra, DijkstraCache, Cluster, None, Vivaldi or Wifi, got "
            "nothing");
  // The others SimGrid has are read too; their routes are asked of SimGrid (standard_xml_test.cc).
  EXPECT_EQ(error_after("routing=\"Floyd\"", "routing=\"Vivaldi\""), "");
}

TEST(SimGridChecks, ConfigSettingsAreSimGridsOwnWithValuesOfTheirType) {
  EXPECT_EQ(error_after("value=\"CM02\"", "value=\"cm02\""),
            "p.xml:3: <config> network/model = cm02: must be one of LV08, Constant, SMPI, IB, CM02");
  EXPECT_EQ(error_after("network/model\" value=\"CM02\"", "network/modle\" value=\"CM02\""),
            "p.xml:3: <config> network/modle = CM02: not a SimGrid 3.32 setting pipegrid takes (platforms/README.md "
            "lists them)");
  EXPECT_EQ(error_after("network/model\" value=\"CM02\"", "network/TCP-gamma\" value=\"abc\""),
            "p.xml:3: <config> network/TCP-gamma = abc: must be a finite number, without a unit");
  EXPECT_EQ(error_after("network/model\" value=\"CM02\"", "network/crosstraffic\" value=\"maybe\""),
            "p.xml:3: <config> network/crosstraffic = maybe: must be yes, on, true, 1, no, off, false or 0");
  EXPECT_EQ(error_after("network/model\" value=\"CM02\"", "tracing\" value=\"yes\""),
            "p.xml:3: <config> tracing = yes: not a setting pipegrid takes: pipegrid writes its own traces (--out DIR)");
  // A <config> after the zones is a SimGrid parse error.
  EXPECT_EQ(error_after("  </zone>\n", "  </zone>\n  <config><prop id=\"network/model\" value=\"CM02\"/></config>\n"),
            "p.xml:14: <config> must come before the zones");
}

TEST(SimGridChecks, ConfigValuesAsSimGridReadsThem) {
  // Booleans: exactly yes on true 1 / no off false 0 (`TRUE` is SimGrid's "not a boolean").
  for (const char* yes : {"yes", "on", "true", "1", "no", "off", "false", "0"})
    EXPECT_EQ(config_rule("network/crosstraffic", yes), "") << yes;
  EXPECT_NE(config_rule("network/crosstraffic", "TRUE"), "");
  // Numbers whole, no unit (SimGrid's strtod must consume the text).
  EXPECT_EQ(config_rule("network/latency-factor", "1.0"), "");
  EXPECT_NE(config_rule("network/latency-factor", "1.0x"), "");
  EXPECT_NE(config_rule("network/latency-factor", "inf"), "");
  EXPECT_NE(config_rule("maxmin/concurrency-limit", "2.5"), "");
  // SimGrid splits a prop's value at blanks and commas.
  EXPECT_EQ(config_rule("network/model", "CM02 LV08"), "a value cannot hold blanks or commas");
}

TEST(SimGridChecks, ProfilesAreCheckedAsSimGridReadsThem) {
  const auto rule = [](const std::string& text) { return profile_rule(text, ProfileKind::Bandwidth); };
  EXPECT_EQ(rule("# comment\n\n% also a comment\n0 1e9\n0.5 5e8\nLOOPAFTER 1\n"), "");
  EXPECT_EQ(rule("0 1e9\r\n1 5e8\r\n"), "");  // CRLF, as SimGrid splits lines at either character
  EXPECT_EQ(rule("0 1e9\n1 5e8\n0.5 1e9\n"), "line 3: dates must not decrease, but 0.5 follows 1");
  EXPECT_EQ(rule("-1 1e9\n"), "line 1: a date must not be negative");
  EXPECT_EQ(rule("0.5\n"), "line 1: expected DATE VALUE, got '0.5'");
  EXPECT_EQ(rule("0 1GBps\n"), "line 1: expected two numbers without units, got '0 1GBps'");
  EXPECT_EQ(rule("0 0\n"), "line 1: a bandwidth must be positive");
  EXPECT_EQ(rule("0 1e9\nPERIODICITY 2\nLOOPAFTER 1\n"), "PERIODICITY and LOOPAFTER cannot both be given");
  EXPECT_EQ(rule("0 1e9\n3 1e9\nPERIODICITY 2\n"), "PERIODICITY 2 is shorter than the last date 3");
  EXPECT_EQ(rule("0 1e9\nLOOPAFTER -1\n"), "LOOPAFTER must not be negative");
  EXPECT_EQ(rule("STOCHASTIC\nDET 1 DET 1e9\n"),
            "line 1: stochastic profiles are not reproducible runs; give dates and values");
  EXPECT_EQ(profile_rule("0 -1\n", ProfileKind::Latency), "line 1: a latency must not be negative");
  EXPECT_EQ(profile_rule("0 0\n", ProfileKind::Latency), "");
}

TEST(SimGridChecks, ALinkProfileIsFoundWhereSimGridLooksAndChecked) {
  write_temp_file("bw.txt", "0 1e9\n0.5 5e8\n");
  write_temp_file("bad.txt", "0 1e9\n1 5e8\n0.5 1e9\n");
  const std::string path = write_temp_file("p.xml", replace_once(kPlatform, "<link id=\"a\" ", "<link id=\"a\" bandwidth_file=\"bw.txt\" "));
  // Beside the platform file (the working directory, searched first, has no bw.txt).
  EXPECT_EQ(read_platform(path).profile_files, std::vector<std::string>{temp_dir() + "bw.txt"});
  EXPECT_EQ(error_after("<link id=\"a\" ", "<link id=\"a\" bandwidth_file=\"bad.txt\" "),
            "p.xml:9: link a: bandwidth_file bad.txt: line 3: dates must not decrease, but 0.5 follows 1");
  EXPECT_EQ(error_after("<link id=\"a\" ", "<link id=\"a\" latency_file=\"none.txt\" "),
            "p.xml:9: link a: latency_file none.txt: no such file in the working directory or beside the platform file");
  // SimGrid 3.32 cannot open a profile by an absolute path at all.
  EXPECT_EQ(error_after("<link id=\"a\" ", "<link id=\"a\" bandwidth_file=\"" + temp_dir() + "bw.txt\" "),
            "p.xml:9: link a: bandwidth_file " + temp_dir() +
                "bw.txt: SimGrid 3.32 cannot open a profile by its absolute path; name it relative to the platform file");
}

TEST(SimGridChecks, HostAndLinkProfilesAreReadWithWhatTheyDrive) {
  write_temp_file("speed.txt", "0 1\n0.5 0.5\n");
  write_temp_file("state.txt", "0 1\n2 0\n3 1\n");
  const PlatformFacts facts = read_platform(write_temp_file(
      "p.xml", replace_once(replace_once(kPlatform, "<host id=\"gpu0\" speed=\"1Tf\">",
                                         "<host id=\"gpu0\" speed=\"1Tf\" speed_file=\"speed.txt\">"),
                            "<link id=\"a\" ", "<link id=\"a\" state_file=\"state.txt\" ")));
  ASSERT_EQ(facts.resource_profiles.size(), 2u);
  EXPECT_TRUE(facts.has_profile("gpu0", ProfileOf::HostSpeed));
  EXPECT_TRUE(facts.has_profile("a", ProfileOf::LinkState));
  EXPECT_FALSE(facts.has_profile("gpu0", ProfileOf::HostState));
  // The dates a state profile turns its resource on, for --on-failure wait.
  EXPECT_EQ(state_on_dates(facts.resource_profiles[1].text), (std::vector<double>{0, 3}));
  EXPECT_FALSE(profile_repeats("0 1\n2 0\n"));
  EXPECT_TRUE(profile_repeats("0 1\n2 0\nLOOPAFTER 0\n"));
  EXPECT_TRUE(profile_repeats("PERIODICITY 5\n0 1\n2 0\n"));
}

TEST(SimGridChecks, ProfilesSimGridWouldAbortOnOrIgnoreAreRefused) {
  write_temp_file("speed.txt", "0 1\n0.5 0.5\n");
  write_temp_file("stopped.txt", "0 1\n0.5 0\n");
  write_temp_file("half-on.txt", "0 1\n0.5 0.5\n");
  // A host at speed 0 never ends its compute; SimGrid skips a negative value without a word.
  EXPECT_EQ(error_after("<host id=\"gpu0\" speed=\"1Tf\">", "<host id=\"gpu0\" speed=\"1Tf\" speed_file=\"stopped.txt\">"),
            "p.xml:5: host gpu0: speed_file stopped.txt: line 2: a speed factor must be positive (1 is the host's "
            "declared speed)");
  EXPECT_EQ(error_after("<host id=\"gpu0\" speed=\"1Tf\">", "<host id=\"gpu0\" speed=\"1Tf\" state_file=\"half-on.txt\">"),
            "p.xml:5: host gpu0: state_file half-on.txt: line 2: a state must be 1 (on) or 0 (off)");
  // SimGrid 3.32 gives a SPLITDUPLEX link's state event to its two directions, which abort on it.
  EXPECT_EQ(error_after("<link id=\"a\" bandwidth=\"1GBps\" latency=\"1us\" sharing_policy=\"SHARED\"/>",
                        "<link id=\"a\" bandwidth=\"1GBps\" latency=\"1us\" sharing_policy=\"SPLITDUPLEX\" "
                        "state_file=\"stopped.txt\"/>"),
            "p.xml:9: link a: state_file: SimGrid 3.32 aborts on the state profile of a SPLITDUPLEX link; give a "
            "state_file to SHARED or FATPIPE links");
  // SimGrid 3.32 keeps profiles by file name and refuses a second resource naming the same one.
  write_temp_file("bw.txt", "0 1e9\n");
  const std::string path = write_temp_file(
      "p.xml", replace_once(replace_once(kPlatform, "<link id=\"a\" ", "<link id=\"a\" bandwidth_file=\"bw.txt\" "),
                            "<link id=\"b\" ", "<link id=\"b\" bandwidth_file=\"bw.txt\" "));
  EXPECT_EQ(error_of([&] { read_platform(path); }),
            path + ":10: link b: bandwidth_file bw.txt: SimGrid 3.32 reads a profile file for one resource only; give "
                   "each its own copy");
}

TEST(SimGridChecks, TraceConnectDrivesHostsButNotTheSealedLinks) {
  const std::string speed_trace = "  </zone>\n  <trace id=\"t\" periodicity=\"-1\">0 1\n1 0.5\n</trace>\n";
  const PlatformFacts facts = read_platform(write_temp_file(
      "p.xml", replace_once(kPlatform, "  </zone>\n",
                            speed_trace + "  <trace_connect kind=\"SPEED\" trace=\"t\" element=\"gpu1\"/>\n")));
  EXPECT_TRUE(facts.has_profile("gpu1", ProfileOf::HostSpeed));
  EXPECT_EQ(error_after("  </zone>\n", speed_trace + "  <trace_connect kind=\"SPEED\" trace=\"t\" element=\"gpu9\"/>\n"),
            "p.xml:17: <trace_connect kind=\"SPEED\">: no host gpu9");
  // SimGrid 3.32 connects traces after the file is read, when its links are sealed: its own assert.
  EXPECT_EQ(error_after("  </zone>\n",
                        "  </zone>\n  <trace id=\"t\" periodicity=\"1\">0 1e9\n</trace>\n"
                        "  <trace_connect kind=\"BANDWIDTH\" trace=\"t\" element=\"a\"/>\n"),
            "p.xml:16: <trace_connect kind=\"BANDWIDTH\">: SimGrid 3.32 cannot connect a trace to a link (the link is "
            "sealed first); give the link a bandwidth_file");
  EXPECT_EQ(error_after("  </zone>\n",
                        "  </zone>\n  <trace id=\"t\" periodicity=\"1\">0 1e-6\n</trace>\n"
                        "  <trace_connect kind=\"LATENCY\" trace=\"t\" element=\"a\"/>\n"),
            "p.xml:16: <trace_connect kind=\"LATENCY\">: SimGrid 3.32 cannot connect a trace to a link (the link is "
            "sealed first); and pipegrid refuses latency profiles");
  EXPECT_EQ(error_after("  </zone>\n",
                        "  </zone>\n  <trace id=\"t\" periodicity=\"1\">0 1\n</trace>\n"
                        "  <trace_connect kind=\"LINK_AVAIL\" trace=\"t\" element=\"a\"/>\n"),
            "p.xml:16: <trace_connect kind=\"LINK_AVAIL\">: SimGrid 3.32 cannot connect a trace to a link (the link is "
            "sealed first); give the link a state_file");
}

TEST(SimGridChecks, RoutesAsSimGridWillFindThem) {
  const std::string path = write_temp_file("p.xml", kPlatform);
  const PlatformFacts facts = read_platform(path);
  RouteReach floyd(facts);
  EXPECT_TRUE(floyd.routed("gpu0", "gpu1"));  // gpu0 → switch → gpu1: two declared routes chained
  EXPECT_TRUE(floyd.routed("gpu1", "gpu0"));  // symmetrical
  EXPECT_FALSE(floyd.routed("gpu0", "gpu2"));  // gpu2 has no route at all
  // Full routing does not chain routes: only declared pairs are routed.
  const PlatformFacts full = read_platform(write_temp_file("full.xml", replace_once(kPlatform, "Floyd", "Full")));
  RouteReach declared(full);
  EXPECT_FALSE(declared.routed("gpu0", "gpu1"));
  EXPECT_TRUE(declared.routed("gpu0", "switch"));
  EXPECT_TRUE(declared.routed("switch", "gpu0"));
  // A one-way route does not lead back.
  const PlatformFacts one_way = read_platform(write_temp_file(
      "oneway.xml", replace_once(kPlatform, "<route src=\"gpu0\" dst=\"switch\">",
                                 "<route src=\"gpu0\" dst=\"switch\" symmetrical=\"NO\">")));
  RouteReach directed(one_way);
  EXPECT_TRUE(directed.routed("gpu0", "gpu1"));
  EXPECT_FALSE(directed.routed("gpu1", "gpu0"));
}

}  // namespace
}  // namespace pipegrid::platform
