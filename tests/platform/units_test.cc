// SimGrid's units: pipegrid reads every quantity exactly as SimGrid 3.32 does, checked against
// SimGrid's own parser (xbt/parse_units.hpp), and writes them in units that read back.
#include <gtest/gtest.h>

#include <cmath>

#include <xbt/parse_units.hpp>

#include "sim/platform/units.h"

namespace pipegrid::platform {
namespace {

// SimGrid's value of `text`, or nullopt when SimGrid refuses it.
template <typename Parse>
std::optional<double> simgrid_value(Parse parse, const std::string& text) {
  try {
    return parse("test.xml", 1, text, "link");
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

TEST(Units, BandwidthsReadAsSimGridReadsThem) {
  for (const std::string text : {"25GBps", "200Gbps", "1Bps", "8bps", "1kBps", "1kbps", "3MBps", "1.5TBps", "2PBps",
                                 "1KiBps", "1MiBps", "1GiBps", "1Gibps", "1Kibps", "0", "25000000000", "1e9Bps",
                                 "-5GBps", "0GBps", "25KBps", "25Kbps", "25 GBps", "GBps", "25gbps", "25GB/s"}) {
    EXPECT_EQ(parse_bandwidth(text), simgrid_value(xbt_parse_get_bandwidth, text)) << text;
  }
}

TEST(Units, BandwidthsHaveTheirMeaning) {
  EXPECT_EQ(parse_bandwidth("25GBps"), 25e9);
  EXPECT_EQ(parse_bandwidth("200Gbps"), 25e9);  // HDR: 200 Gb/s is 25 GB/s
  EXPECT_EQ(parse_bandwidth("1KiBps"), 1024);
  EXPECT_EQ(parse_bandwidth("1GiBps"), 1024.0 * 1024 * 1024);
  EXPECT_EQ(parse_bandwidth("8Mibps"), 1024.0 * 1024);
  EXPECT_EQ(parse_bandwidth("300000000000"), 300e9);  // unit-less is bytes/s
  EXPECT_EQ(parse_bandwidth("25KBps"), std::nullopt);  // SimGrid's decimal kilo is a lower-case k
}

TEST(Units, SpeedsReadAsSimGridReadsThem) {
  for (const std::string text : {"312Tf", "989Tf", "1f", "1kf", "2.5Gf", "1Pf", "1Ef", "1teraflops", "1flops",
                                 "1kiloflops", "5", "0", "312TF", "312 Tf", "Tf", "312Tflops"}) {
    EXPECT_EQ(parse_speed(text), simgrid_value(xbt_parse_get_speed, text)) << text;
  }
  EXPECT_EQ(parse_speed("312Tf"), 312e12);
  EXPECT_EQ(parse_speed("1teraflops"), 1e12);
}

TEST(Units, TimesReadAsSimGridReadsThem) {
  for (const std::string text : {"1us", "500ns", "0.5us", "1ms", "2s", "3ps", "1m", "1h", "1d", "1w", "0", "1e-6",
                                 "-1us", "1µs", "1 us", "1Ms", "us"}) {
    EXPECT_EQ(parse_time(text), simgrid_value(xbt_parse_get_time, text)) << text;
  }
  EXPECT_EQ(parse_time("1us"), 1e-6);
  EXPECT_EQ(parse_time("1m"), 60);  // m is a minute, not a milli-second
}

TEST(Units, WritesTheLargestUnitInWhichTheValueIsAtLeastOne) {
  EXPECT_EQ(format_speed(312e12), "312Tf");
  EXPECT_EQ(format_speed(280.8e12), "280.8Tf");
  EXPECT_EQ(format_speed(0.5), "0.5f");
  EXPECT_EQ(format_bandwidth(25e9), "25GBps");
  EXPECT_EQ(format_bandwidth(2400e9), "2.4TBps");
  EXPECT_EQ(format_bandwidth(12.5e9), "12.5GBps");
  EXPECT_EQ(format_bandwidth(999), "999Bps");
  EXPECT_EQ(format_time(1e-6), "1us");
  EXPECT_EQ(format_time(0.5e-6), "500ns");
  EXPECT_EQ(format_time(0), "0s");
  EXPECT_EQ(format_time(2), "2s");
  EXPECT_EQ(format_time(-1e-3), "-1ms");
}

TEST(Units, WrittenValuesReadBackWithinRounding) {
  // Fifteen significant digits: within 1e-14 relative; exact for the numbers of the presets.
  auto expect_close = [](std::optional<double> read, double written) {
    ASSERT_TRUE(read);
    EXPECT_NEAR(*read, written, 1e-14 * std::abs(written));
  };
  for (double bandwidth : {25e9, 300e9, 2400e9, 1.0 / 3 * 1e11, 123456789.0, 1e15})
    expect_close(parse_bandwidth(format_bandwidth(bandwidth)), bandwidth);
  for (double seconds : {1e-6, 0.5e-6, 1.0 / 3, 7e-12, 3600.0}) expect_close(parse_time(format_time(seconds)), seconds);
  for (double flops : {312e12, 989e12, 1.0}) expect_close(parse_speed(format_speed(flops)), flops);
  for (double exact : {25e9, 300e9, 2400e9, 12.5e9, 50e9, 500e9}) EXPECT_EQ(*parse_bandwidth(format_bandwidth(exact)), exact);
  EXPECT_EQ(*parse_time(format_time(1e-6)), 1e-6);
}

}  // namespace
}  // namespace pipegrid::platform
