// The links' load log (load_log.h): each link gets its own entries, in the order they were logged,
// links in increasing order, and the log is empty after.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "sim/network/load_log.h"

namespace pipegrid::sim {
namespace {

TEST(LoadLog, HandsEachLinkItsEntriesInTheOrderLogged) {
  LoadLog log;
  log.piece(3, {0, 1, 10});
  log.busy(1, 0, 2);
  log.piece(3, {1, 2, 20});
  log.piece(0, {0, 1, 5});
  log.piece(1, {2, 3, 7});
  std::vector<std::pair<int, std::vector<LoadLog::Entry>>> seen;
  log.drain(5, [&](int link, const LoadLog::Entry* first, const LoadLog::Entry* last) {
    seen.emplace_back(link, std::vector<LoadLog::Entry>(first, last));
  });
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].first, 0);
  ASSERT_EQ(seen[0].second.size(), 1u);
  EXPECT_EQ(seen[0].second[0].piece.bytes, 5);
  EXPECT_EQ(seen[1].first, 1);
  ASSERT_EQ(seen[1].second.size(), 2u);
  EXPECT_TRUE(seen[1].second[0].busy);  // logged first
  EXPECT_EQ(seen[1].second[0].piece.end, 2);
  EXPECT_FALSE(seen[1].second[1].busy);
  EXPECT_EQ(seen[1].second[1].piece.bytes, 7);
  EXPECT_EQ(seen[2].first, 3);
  ASSERT_EQ(seen[2].second.size(), 2u);
  EXPECT_EQ(seen[2].second[0].piece.bytes, 10);
  EXPECT_EQ(seen[2].second[1].piece.bytes, 20);
  EXPECT_TRUE(log.empty());
  int calls = 0;
  log.drain(5, [&](int, const LoadLog::Entry*, const LoadLog::Entry*) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace pipegrid::sim
