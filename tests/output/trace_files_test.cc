// Which trace files a run writes: --trace auto's GPUs (every one up to kTraceAllUpTo, one per
// pipeline rank above) and trace.json.gz, which must read back through zlib to exactly the plain
// file's bytes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>
#include <zlib.h>

#include "sim/output/trace_writer.h"

namespace pipegrid::sim {
namespace {

using namespace pipegrid::output;

namespace fs = std::filesystem;

// `n` GPUs, 8 per node, tp 8 × dp 2 × pp (n / 16), tp fastest.
std::vector<TracedGpu> gpus(int n) {
  std::vector<TracedGpu> list;
  for (int g = 0; g < n; ++g)
    list.push_back({"gpu" + std::to_string(g), g / 8, g % 8, GpuCoordinates{g % 8, (g / 8) % 2, g / 16}});
  return list;
}

std::string directory(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "trace-files-" + name + "-" + std::to_string(getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A compute event on every GPU and a transfer from each to the next.
void write_run(const std::string& dir, int n, TraceScope scope, TraceJson json) {
  TraceWriter trace(dir, gpus(n), scope, {}, json);
  for (int g = 0; g < n; ++g) {
    trace.write({g, Track::Compute, "F", 0, g, 0, -1, 0, 0.001 * g, 0.001 * g + 0.5});
    trace.write({g, Track::Comm, "p2p", 0, g, 'F', (g + 1) % n, 1e6, 0.5, 0.75});
  }
  trace.close();
}

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string gunzip(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  EXPECT_NE(file, nullptr);
  std::string text;
  char buffer[1 << 14];
  for (int read; (read = gzread(file, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(read));
  gzclose(file);
  return text;
}

// The GPUs trace.csv has rows for: its first column.
std::set<int> csv_gpus(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  std::set<int> seen;
  while (std::getline(in, line)) seen.insert(std::stoi(line.substr(0, line.find(','))));
  return seen;
}

TEST(TraceFiles, GzipReadsBackAsThePlainFile) {
  const std::string plain = directory("plain"), gzip = directory("gzip");
  write_run(plain, 64, TraceScope::All, TraceJson::Plain);
  write_run(gzip, 64, TraceScope::All, TraceJson::Gzip);
  ASSERT_TRUE(fs::exists(plain + "/trace.json"));
  ASSERT_TRUE(fs::exists(gzip + "/trace.json.gz"));
  EXPECT_FALSE(fs::exists(gzip + "/trace.json"));
  const std::string text = contents(plain + "/trace.json");
  EXPECT_GT(text.size(), 10000u);
  EXPECT_EQ(gunzip(gzip + "/trace.json.gz"), text);
  EXPECT_LT(fs::file_size(gzip + "/trace.json.gz"), text.size() / 4);
  EXPECT_EQ(contents(plain + "/trace.csv"), contents(gzip + "/trace.csv"));
}

TEST(TraceFiles, AutoKeepsEveryGpuUpToItsSize) {
  const std::string dir = directory("small");
  write_run(dir, kTraceAllUpTo, TraceScope::Auto, TraceJson::Auto);
  EXPECT_EQ(csv_gpus(dir + "/trace.csv").size(), static_cast<std::size_t>(kTraceAllUpTo));
  EXPECT_TRUE(fs::exists(dir + "/trace.json"));  // 256 GPUs kept: plain
}

TEST(TraceFiles, AutoKeepsOneGpuPerPipelineRankAbove) {
  // 272 GPUs: pp 17, and the GPU with tp 0, dp 0 of rank r is 16 r.
  const std::string dir = directory("large");
  write_run(dir, kTraceAllUpTo + 16, TraceScope::Auto, TraceJson::Auto);
  std::set<int> expected;
  for (int r = 0; r < 17; ++r) expected.insert(16 * r);
  EXPECT_EQ(csv_gpus(dir + "/trace.csv"), expected);
  EXPECT_TRUE(fs::exists(dir + "/trace.json"));  // 17 GPUs kept: plain
  // Every GPU of the same job: more than 256 kept, so compressed, and an earlier trace.json removed.
  write_run(dir, kTraceAllUpTo + 16, TraceScope::All, TraceJson::Auto);
  EXPECT_EQ(csv_gpus(dir + "/trace.csv").size(), static_cast<std::size_t>(kTraceAllUpTo + 16));
  EXPECT_TRUE(fs::exists(dir + "/trace.json.gz"));
  EXPECT_FALSE(fs::exists(dir + "/trace.json"));
}

}  // namespace
}  // namespace pipegrid::sim
