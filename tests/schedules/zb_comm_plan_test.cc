// The zero-bubble repository's comm plan (schedules/zb_comm_plan.cc) against the repository's own
// output: sail-sg/zero-bubble-pipeline-parallelism @ 39f2c186, scheduler/passes.py run_schedule_passes
// with the runtime's first-iteration costs (f = b = w = 1000, c = 1), whose print_schedule (passes.py
// 63-66) writes each stage's nodes as `f0 sf0 rb0 b0 w0 …`: f/b/w compute (its b is our I), sf/rf/sb/rb
// SEND_F, RECV_F, SEND_B, RECV_B, lower case chunk 0 and upper case chunk 1. The ZB-H1 lines are the
// ones quoted in /tmp/notes/dualpipe_zb_p2p.md §3.2; the ZB-V ones, of which the note quotes the start,
// and the times add_time gave the nodes were printed by the same replay of the repository's passes
// (/tmp/zbsim/run_zb.py: zb_h1(2, 4), zbv_sched(2, 4)).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "schedules/comm_check.h"
#include "schedules/comm_plan.h"
#include "schedules/comm_timing.h"
#include "schedules/generators.h"
#include "schedules/schedule_csv.h"
#include "schedules/timing.h"

namespace pipegrid {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

// One print_schedule node of device `rank` in our notation: chunk 0 is stage `rank`, chunk 1 (upper
// case) stage 2p − 1 − rank (the V placement); a comm node names the stage of its own device.
std::string ours(const std::string& node, int rank, int ranks) {
  std::size_t digits = 0;
  while (!std::isdigit(static_cast<unsigned char>(node[digits]))) ++digits;
  const bool chunk1 = std::isupper(static_cast<unsigned char>(node[0]));
  std::string name = node.substr(0, digits);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string kind = name == "f"    ? "F"
                           : name == "b"  ? "I"
                           : name == "w"  ? "W"
                           : name == "sf" ? "SEND_F"
                           : name == "rf" ? "RECV_F"
                           : name == "sb" ? "SEND_B"
                           : name == "rb" ? "RECV_B"
                                          : "?" + name;
  return std::to_string(chunk1 ? 2 * ranks - 1 - rank : rank) + kind + node.substr(digits);
}

std::vector<std::string> translated(const std::string& line, int rank, int ranks) {
  std::vector<std::string> items;
  for (const std::string& node : split(line, ' ')) items.push_back(ours(node, rank, ranks));
  return items;
}

// The compute nodes only, as our ops are written.
std::vector<std::string> compute_of(const std::string& line, int rank, int ranks) {
  std::vector<std::string> ops;
  for (const std::string& item : translated(line, rank, ranks))
    if (item.find('_') == std::string::npos) ops.push_back(item);
  return ops;
}

// Each rank's items, ops and comm batches interleaved, as write_schedule_csv writes them.
std::vector<std::vector<std::string>> items_of(const Schedule& s) {
  std::ostringstream out;
  write_schedule_csv(out, s);
  std::vector<std::vector<std::string>> ranks;
  for (const std::string& line : split(out.str(), '\n')) ranks.push_back(split(line, ','));
  return ranks;
}

std::vector<std::string> ops_of(const Schedule& s, int rank) {
  std::vector<std::string> ops;
  for (const Op& op : s.programs[rank]) ops.push_back(to_string(op));
  return ops;
}

// A schedule from print_schedule lines' compute nodes, on the chain (chunks 1) or the V (chunks 2).
Schedule from_repo(const std::vector<std::string>& lines, int microbatches, int chunks) {
  const int p = static_cast<int>(lines.size());
  Schedule s{"repo",
             p,
             microbatches,
             chunks,
             StageLayout::chain(chunks == 1 ? loop_placement(p, 1) : v_placement(p), microbatches),
             {},
             {}};
  for (int r = 0; r < p; ++r) {
    s.programs.emplace_back();
    for (const std::string& op : compute_of(lines[r], r, p)) s.programs.back().push_back(*parse_op(op));
  }
  return s;
}

// add_time's times, `node@start-completion` for the compute nodes of each device, against
// time_schedule with the same costs and latency c = 1: the claim zb_comm_plan.cc rests on.
void expect_add_time(const Schedule& s, const std::vector<std::string>& times) {
  const Timing t = time_schedule(s, ActionTimes{1000, 2000, 1000, std::nullopt}, {1, true});
  for (int r = 0; r < s.ranks; ++r) {
    const auto nodes = split(times[r], ' ');
    ASSERT_EQ(nodes.size(), s.programs[r].size()) << "rank " << r;
    for (std::size_t pos = 0; pos < nodes.size(); ++pos) {
      const std::size_t at = nodes[pos].find('@'), dash = nodes[pos].find('-');
      EXPECT_EQ(ours(nodes[pos].substr(0, at), r, s.ranks), to_string(s.programs[r][pos]));
      EXPECT_EQ(t.spans[r][pos].start, std::stod(nodes[pos].substr(at + 1, dash - at - 1))) << nodes[pos];
      EXPECT_EQ(t.spans[r][pos].end, std::stod(nodes[pos].substr(dash + 1))) << nodes[pos];
    }
  }
}

const std::vector<std::string> kZbH1 = {
    "f0 sf0 f1 sf1 rb0 b0 rb1 w0 f2 sf2 b1 w1 rb2 f3 sf3 b2 w2 rb3 b3 w3",
    "rf0 rf1 f0 b0 sb0 f1 b1 sb1 w0 rf2 f2 b2 sb2 rf3 w1 f3 b3 sb3 w2 w3",
};

TEST(ZbCommPlan, ZbH1MatchesTheRepositorysPrintSchedule) {
  const Schedule s = generate_zb_h1({2, 4, 0});
  // Our ZB-H1 runs the repository's compute order (zb.py create_schedule with max_mem = p·F).
  EXPECT_EQ(ops_of(s, 0), compute_of(kZbH1[0], 0, 2));
  EXPECT_EQ(ops_of(s, 1), compute_of(kZbH1[1], 1, 2));
  expect_add_time(s, {"f0@0-1000 f1@1000-2000 b0@3002-4002 w0@4002-5002 f2@5002-6002 b1@6002-7002 w1@7002-8002 "
                      "f3@8002-9002 b2@9002-10002 w2@10002-11002 b3@11004-12004 w3@12004-13004",
                      "f0@1001-2001 b0@2001-3001 f1@3001-4001 b1@4001-5001 w0@5001-6001 f2@6003-7003 b2@7003-8003 "
                      "w1@8003-9003 f3@9003-10003 b3@10003-11003 w2@11003-12003 w3@12003-13003"});
  const auto items = items_of(lower(s, CommPlan::Zb));
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0], translated(kZbH1[0], 0, 2));
  EXPECT_EQ(items[1], translated(kZbH1[1], 1, 2));
}

const std::vector<std::string> kZbv = {
    "f0 sf0 f1 sf1 f2 sf2 RF0 F0 RF1 B0 SB0 W0 F1 B1 SB1 W1 rb0 f3 sf3 b0 RF2 w0 F2 B2 SB2 W2 rb1 b1 RF3 w1 F3 rb2 B3 "
    "SB3 b2 W3 rb3 w2 b3 w3",
    "rf0 rf1 f0 rf2 F0 SF0 f1 F1 SF1 RB0 B0 W0 RB1 f2 b0 sb0 rf3 w0 F2 SF2 B1 W1 RB2 f3 b1 sb1 w1 F3 SF3 B2 b2 sb2 RB3 "
    "B3 b3 sb3 W2 w2 W3 w3",
};

// Our ZB-V is PyTorch's order, which leaves the repository's (zbv.py) only in the cooldown: from the
// 20th op on rank 0 (ours 3W3 0I2, the repository's 0I2 3W3) and from the 18th on rank 1 (ours 2W2 1I2
// 2I3 1I3 1W2, the repository's 1I2 2I3 1I3 2W2 1W2). The lowerings agree up to the first comm node
// placed by the new order: the first 31 items of rank 0 and 30 of rank 1, the note's prefix included.
TEST(ZbCommPlan, ZbvMatchesTheRepositoryUpToTheCooldown) {
  const auto items = items_of(lower(generate_zbv({2, 4, 0}), CommPlan::Zb));
  const std::vector<std::string> prefix = {"f0 sf0 f1 sf1 f2 sf2 RF0 F0 RF1 B0 SB0 W0 F1",
                                           "rf0 rf1 f0 rf2 F0 SF0 f1 F1 SF1 RB0 B0"};
  const std::size_t agree[] = {31, 30};
  for (int r = 0; r < 2; ++r) {
    const auto head = [&](const std::vector<std::string>& v, std::size_t n) {
      return std::vector<std::string>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(n, v.size())));
    };
    const auto note = translated(prefix[r], r, 2), repo = translated(kZbv[r], r, 2);
    EXPECT_EQ(head(items[r], note.size()), note) << "rank " << r;
    EXPECT_EQ(head(items[r], agree[r]), head(repo, agree[r])) << "rank " << r;
    ASSERT_GT(items[r].size(), agree[r]);
    EXPECT_NE(items[r][agree[r]], repo[agree[r]]) << "rank " << r;
  }
}

TEST(ZbCommPlan, ZbvInTheRepositorysOrderMatchesItsPrintSchedule) {
  const Schedule s = from_repo(kZbv, 4, 2);
  expect_add_time(s, {"f0@0-1000 f1@1000-2000 f2@2000-3000 F0@3002-4002 B0@4002-5002 W0@5002-6002 F1@6002-7002 "
                      "B1@7002-8002 W1@8002-9002 f3@9002-10002 b0@10002-11002 w0@11002-12002 F2@12002-13002 "
                      "B2@13002-14002 W2@14002-15002 b1@15004-16004 w1@16004-17004 F3@17004-18004 B3@18004-19004 "
                      "b2@19004-20004 W3@20004-21004 w2@21004-22004 b3@22004-23004 w3@23004-24004",
                      "f0@1001-2001 F0@2001-3001 f1@3001-4001 F1@4001-5001 B0@5003-6003 W0@6003-7003 f2@7003-8003 "
                      "b0@8003-9003 w0@9003-10003 F2@10003-11003 B1@11003-12003 W1@12003-13003 f3@13003-14003 "
                      "b1@14003-15003 w1@15003-16003 F3@16003-17003 B2@17003-18003 b2@18003-19003 B3@19005-20005 "
                      "b3@20005-21005 W2@21005-22005 w2@22005-23005 W3@23005-24005 w3@24005-25005"});
  const auto items = items_of(lower(s, CommPlan::Zb));
  EXPECT_EQ(items[0], translated(kZbv[0], 0, 2));
  EXPECT_EQ(items[1], translated(kZbv[1], 1, 2));
}

TEST(ZbCommPlan, IsTheFrameworkPlanOfTheZeroBubbleSchedules) {
  for (const char* name : {"zb-h1", "zb-h2", "zbv"}) {
    const Schedule s = generate_schedule(name, {4, 8, 0});
    const Schedule lowered = lower(s, CommPlan::Zb);
    EXPECT_EQ(lower(s, CommPlan::Framework).comms, lowered.comms) << name;
    for (const auto& batches : lowered.comms)
      for (const CommBatch& batch : batches) {
        EXPECT_EQ(batch.actions.size(), 1u) << name;  // individual isend / irecv
        EXPECT_EQ(batch.wait, CommWait::AtUse) << name;
      }
  }
}

// Valid, no deadlock under rendezvous, and with async p2p the compute-only engine's makespan: a send
// is posted as its producer ends and a receive waited only by its consumer.
TEST(ZbCommPlan, LowersTheGeneratorsWithoutDeadlock) {
  const ActionTimes times{1, 2, 1, std::nullopt};
  for (const char* name : {"zb-h1", "zb-h2", "zbv"})
    for (const int p : {4, 8, 16})
      for (const int m : {2 * p, 3 * p}) {
        SCOPED_TRACE(std::string(name) + " p=" + std::to_string(p) + " m=" + std::to_string(m));
        const Schedule s = generate_schedule(name, {p, m, 0});
        const Schedule lowered = lower(s, CommPlan::Zb);
        EXPECT_NO_THROW(validate_comms(lowered));
        const CommTiming rendezvous = time_lowered(lowered, times, {0.001, P2pMode::Rendezvous, 1, false});
        EXPECT_FALSE(rendezvous.deadlock.has_value());
        EXPECT_FALSE(rendezvous.timing.stall.has_value());
        const CommTiming async = time_lowered(lowered, times, {0.001, P2pMode::Async, 1, false});
        ASSERT_FALSE(async.deadlock.has_value());
        EXPECT_NEAR(async.timing.makespan, time_schedule(s, times, {0.001}).makespan, 1e-12);
        EXPECT_GE(rendezvous.timing.makespan, async.timing.makespan - 1e-12);
      }
}

}  // namespace
}  // namespace pipegrid
