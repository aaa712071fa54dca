// The dualpipe comm plan against DeepSeek's own control flow: the batches of DualPipe.step() and
// DualPipeV.step() as a line-by-line Python port of them records the posts (deepseek-ai/DualPipe at
// 3da1bbe), valid comms and no deadlock over a grid, and the orders the plan refuses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/input_error.h"
#include "schedules/comm_check.h"
#include "schedules/comm_plan.h"
#include "schedules/comm_timing.h"
#include "schedules/generators.h"
#include "schedules/validate.h"
#include "test_support.h"

namespace pipegrid {
namespace {

using test_support::error_of;

// The plan as the run layer reaches it: lower() with --comm-plan dualpipe.
Schedule lowered(const Schedule& s) { return lower(s, CommPlan::DualPipe); }

// A rank's program with its comm batches between the ops, cells joined by commas, as
// write_schedule_csv writes them (without PyTorch's OVERLAP_F_B tag).
std::string cells(const Schedule& s, int rank) {
  std::string text;
  const auto cell = [&](const std::string& c) { text += (text.empty() ? "" : ",") + c; };
  const auto& program = s.programs[rank];
  std::size_t batch = 0;
  for (std::size_t pos = 0; pos <= program.size(); ++pos) {
    for (; batch < s.comms[rank].size() && s.comms[rank][batch].before == pos; ++batch)
      cell(to_string(s.comms[rank][batch]));
    if (pos < program.size()) cell(to_string(program[pos]));
  }
  return text;
}

// ---- DeepSeek's own posts ------------------------------------------------------------------------
// The literals below are /tmp/dpsim/dp4x10.txt and dpv4x10.txt (trace_dualpipe.py, a port of step()'s
// control flow that records every post, cross-checked there for FIFO matching without deadlock),
// translated into pipegrid's notation: real phase 0 (module[0]) of rank r is stage r, phase 1 is stage
// 7 − r; DualPipe's phase-1 chunk c is micro-batch 5 + c; a backward with enable_zb is I, its
// WeightGradStore.pop a W; every batch_isend_irecv + wait is a batch [..] waited at once. Each line
// is one step of step(), dualpipe.py 358-427 (steps 1-8 at 358, 363, 373, 381, 398, 404, 415, 421,
// the last commit at 427) and dualpipev.py 330-398 (330, 335, 344, 352, 369, 375, 386, 392; 398).

TEST(DualPipeCommPlan, FourRanksTenMicrobatchesPostAsDualPipePy) {
  const Schedule s = lowered(generate_dualpipe({4, 10, 0}));
  const std::vector<std::string> expected = {
      // rank 0: s1..s8 = 2,1,1,2,1,1,1,1
      "0F0,[0SEND_F0],0F1,"
      "[0SEND_F1],0F2,[7RECV_F5],7F5,"
      "[0SEND_F2],7I5,[7SEND_B5;7RECV_F6],7W5,7F6,"
      "(0F3;7B6),[0SEND_F3;7SEND_B6;7RECV_F7;0RECV_B0],(7F7;0B0),(0F4;7B7),[0SEND_F4;7SEND_B7;7RECV_F8;0RECV_B1],"
      "(7F8;0B1),"
      "7B8,[7SEND_B8;7RECV_F9;0RECV_B2],(7F9;0B2),"
      "7B9,[7SEND_B9;0RECV_B3],0I3,"
      "0W3,[0RECV_B4],0I4,"
      "0W4",
      // rank 1, a middle rank: s1..s8 = 0,2,0,3,0,2,0,2 (steps 1, 3, 5 and 7 empty)
      "[1RECV_F0],1F0,[1SEND_F0;1RECV_F1;6RECV_F5],6F5,[6SEND_F5],1F1,[1SEND_F1;1RECV_F2;6RECV_F6],6F6,"
      "1F2,[6SEND_F6;6RECV_B5],6B5,[1SEND_F2;6SEND_B5;6RECV_F7;1RECV_B0],(6F7;1B0),"
      "[6SEND_F7;1SEND_B0;1RECV_F3;6RECV_B6],(1F3;6B6),[1SEND_F3;6SEND_B6;6RECV_F8;1RECV_B1],(6F8;1B1),"
      "[6SEND_F8;1SEND_B1;1RECV_F4;6RECV_B7],(1F4;6B7),[1SEND_F4;6SEND_B7;6RECV_F9;1RECV_B2],(6F9;1B2),"
      "[6SEND_F9;1SEND_B2;6RECV_B8],6B8,[6SEND_B8;1RECV_B3],1B3,[1SEND_B3;6RECV_B9],6I9,[6SEND_B9;1RECV_B4],1I4,"
      "[1SEND_B4],6W9,1W4",
      // rank 2, the other middle rank, in the second half (its phase 0 is real phase 1)
      "[5RECV_F5],5F5,[5SEND_F5;5RECV_F6;2RECV_F0],2F0,[2SEND_F0],5F6,[5SEND_F6;5RECV_F7;2RECV_F1],2F1,"
      "5F7,[2SEND_F1;2RECV_B0],2B0,[5SEND_F7;2SEND_B0;2RECV_F2;5RECV_B5],(2F2;5B5),"
      "[2SEND_F2;5SEND_B5;5RECV_F8;2RECV_B1],(5F8;2B1),[5SEND_F8;2SEND_B1;2RECV_F3;5RECV_B6],(2F3;5B6),"
      "[2SEND_F3;5SEND_B6;5RECV_F9;2RECV_B2],(5F9;2B2),[5SEND_F9;2SEND_B2;2RECV_F4;5RECV_B7],(2F4;5B7),"
      "[2SEND_F4;5SEND_B7;2RECV_B3],2B3,[2SEND_B3;5RECV_B8],5B8,[5SEND_B8;2RECV_B4],2I4,[2SEND_B4;5RECV_B9],5I9,"
      "[5SEND_B9],2W4,5W9",
      // rank 3, the mirror of rank 0
      "4F5,[4SEND_F5],4F6,"
      "[4SEND_F6],4F7,[3RECV_F0],3F0,"
      "[4SEND_F7],3I0,[3SEND_B0;3RECV_F1],3W0,3F1,"
      "(4F8;3B1),[4SEND_F8;3SEND_B1;3RECV_F2;4RECV_B5],(3F2;4B5),(4F9;3B2),[4SEND_F9;3SEND_B2;3RECV_F3;4RECV_B6],"
      "(3F3;4B6),"
      "3B3,[3SEND_B3;3RECV_F4;4RECV_B7],(3F4;4B7),"
      "3B4,[3SEND_B4;4RECV_B8],4I8,"
      "4W8,[4RECV_B9],4I9,"
      "4W9",
  };
  for (int r = 0; r < 4; ++r) EXPECT_EQ(cells(s, r), expected[r]) << "rank " << r;
}

TEST(DualPipeCommPlan, DualPipeVFourRanksTenMicrobatchesPostAsDualPipeVPy) {
  const Schedule s = lowered(generate_dualpipev({4, 10, 0}));
  const std::vector<std::string> expected = {
      // rank 0: s1..s8 = 6,1,3,3,3,1,3,1
      "0F0,[0SEND_F0],0F1,[0SEND_F1],0F2,[0SEND_F2],0F3,[0SEND_F3],0F4,[0SEND_F4],0F5,"
      "[0SEND_F5],0F6,[7RECV_F0],7F0,"
      "[0SEND_F6],7I0,[7SEND_B0;7RECV_F1],7W0,7F1,7I1,[7SEND_B1;7RECV_F2],7W1,7F2,7I2,[7SEND_B2;7RECV_F3],7W2,7F3,"
      "(0F7;7B3),[0SEND_F7;7SEND_B3;7RECV_F4;0RECV_B0],(7F4;0B0),(0F8;7B4),[0SEND_F8;7SEND_B4;7RECV_F5;0RECV_B1],"
      "(7F5;0B1),(0F9;7B5),[0SEND_F9;7SEND_B5;7RECV_F6;0RECV_B2],(7F6;0B2),"
      "7B6,[7SEND_B6;7RECV_F7;0RECV_B3],(7F7;0B3),7B7,[7SEND_B7;7RECV_F8;0RECV_B4],(7F8;0B4),7B8,"
      "[7SEND_B8;7RECV_F9;0RECV_B5],(7F9;0B5),"
      "7B9,[7SEND_B9;0RECV_B6],0I6,"
      "0W6,[0RECV_B7],0I7,0W7,[0RECV_B8],0I8,0W8,[0RECV_B9],0I9,"
      "0W9",
      // rank 1: s1..s8 = 4,2,2,4,2,2,2,2
      "[1RECV_F0],1F0,[1SEND_F0;1RECV_F1],1F1,[1SEND_F1;1RECV_F2],1F2,[1SEND_F2;1RECV_F3],1F3,"
      "[1SEND_F3;1RECV_F4],1F4,[1RECV_F5;6RECV_F0],6F0,[6SEND_F0;1SEND_F4],1F5,[1RECV_F6;6RECV_F1],6F1,"
      "[6SEND_F1;1SEND_F5;6RECV_B0],6I0,[6SEND_B0;6RECV_F2],6W0,6F2,[6SEND_F2;6RECV_B1],6I1,[6SEND_B1;6RECV_F3],6W1,"
      "6F3,"
      "[6SEND_F3;6RECV_B2],(1F6;6B2),[1SEND_F6;6SEND_B2;6RECV_F4;1RECV_B0],(6F4;1B0),"
      "[6SEND_F4;1SEND_B0;1RECV_F7;6RECV_B3],(1F7;6B3),[1SEND_F7;6SEND_B3;6RECV_F5;1RECV_B1],(6F5;1B1),"
      "[6SEND_F5;1SEND_B1;1RECV_F8;6RECV_B4],(1F8;6B4),[1SEND_F8;6SEND_B4;6RECV_F6;1RECV_B2],(6F6;1B2),"
      "[6SEND_F6;1SEND_B2;1RECV_F9;6RECV_B5],(1F9;6B5),[1SEND_F9;6SEND_B5;6RECV_F7;1RECV_B3],(6F7;1B3),"
      "[6SEND_F7;1SEND_B3;6RECV_B6],6B6,[6SEND_B6;6RECV_F8;1RECV_B4],(6F8;1B4),[6SEND_F8;1SEND_B4;6RECV_B7],6B7,"
      "[6SEND_B7;6RECV_F9;1RECV_B5],(6F9;1B5),"
      "[6SEND_F9;1SEND_B5;6RECV_B8],6B8,[6SEND_B8;1RECV_B6],1B6,[1SEND_B6;6RECV_B9],6I9,[6SEND_B9;1RECV_B7],1I7,"
      "[1SEND_B7],6W9,[1RECV_B8],1I8,[1SEND_B8],1W7,[1RECV_B9],1I9,"
      "[1SEND_B9],1W8,1W9",
      // rank 2: s1..s8 = 2,3,1,5,1,3,1,3
      "[2RECV_F0],2F0,[2SEND_F0;2RECV_F1],2F1,"
      "[2SEND_F1;2RECV_F2],2F2,[2RECV_F3;5RECV_F0],5F0,[5SEND_F0;2SEND_F2],2F3,[2RECV_F4;5RECV_F1],5F1,"
      "[5SEND_F1;2SEND_F3],2F4,[2RECV_F5;5RECV_F2],5F2,"
      "[5SEND_F2;2SEND_F4;5RECV_B0],5I0,[5SEND_B0;5RECV_F3],5W0,5F3,"
      "[5SEND_F3;5RECV_B1],(2F5;5B1),[2SEND_F5;5SEND_B1;5RECV_F4;2RECV_B0],(5F4;2B0),"
      "[5SEND_F4;2SEND_B0;2RECV_F6;5RECV_B2],(2F6;5B2),[2SEND_F6;5SEND_B2;5RECV_F5;2RECV_B1],(5F5;2B1),"
      "[5SEND_F5;2SEND_B1;2RECV_F7;5RECV_B3],(2F7;5B3),[2SEND_F7;5SEND_B3;5RECV_F6;2RECV_B2],(5F6;2B2),"
      "[5SEND_F6;2SEND_B2;2RECV_F8;5RECV_B4],(2F8;5B4),[2SEND_F8;5SEND_B4;5RECV_F7;2RECV_B3],(5F7;2B3),"
      "[5SEND_F7;2SEND_B3;2RECV_F9;5RECV_B5],(2F9;5B5),[2SEND_F9;5SEND_B5;5RECV_F8;2RECV_B4],(5F8;2B4),"
      "[5SEND_F8;2SEND_B4;5RECV_B6],5B6,[5SEND_B6;5RECV_F9;2RECV_B5],(5F9;2B5),"
      "[5SEND_F9;2SEND_B5;5RECV_B7],5B7,[5SEND_B7;2RECV_B6],2B6,[2SEND_B6;5RECV_B8],5B8,[5SEND_B8;2RECV_B7],2I7,"
      "[2SEND_B7;5RECV_B9],5I9,[5SEND_B9;2RECV_B8],2I8,"
      "[2SEND_B8],2W7,[2RECV_B9],2I9,"
      "[2SEND_B9],5W9,2W8,2W9",
      // rank 3, the last: the turn of the V is local, so 3F·'s output and 4B·'s gradient are never sent
      "[3RECV_F0],3F0,[3RECV_F1],4F0,[4SEND_F0],3F1,[3RECV_F2],4F1,[4SEND_F1],3F2,[3RECV_F3],4F2,[4SEND_F2],3F3,"
      "[3RECV_F4],4F3,"
      "3F4,[4SEND_F3;4RECV_B0],4B0,(4F4;3B0),[4SEND_F4;3SEND_B0;3RECV_F5;4RECV_B1],(3F5;4B1),(4F5;3B1),"
      "[4SEND_F5;3SEND_B1;3RECV_F6;4RECV_B2],(3F6;4B2),(4F6;3B2),[4SEND_F6;3SEND_B2;3RECV_F7;4RECV_B3],(3F7;4B3),"
      "(4F7;3B3),[4SEND_F7;3SEND_B3;3RECV_F8;4RECV_B4],(3F8;4B4),(4F8;3B4),[4SEND_F8;3SEND_B4;3RECV_F9;4RECV_B5],"
      "(3F9;4B5),(4F9;3B5),"
      "[4SEND_F9;3SEND_B5;4RECV_B6],4B6,3B6,[3SEND_B6;4RECV_B7],4B7,3B7,[3SEND_B7;4RECV_B8],4I8,3I8,"
      "[3SEND_B8;4RECV_B9],4I9,3I9,"
      "[3SEND_B9],4W8,3W8,4W9,3W9",
  };
  for (int r = 0; r < 4; ++r) EXPECT_EQ(cells(s, r), expected[r]) << "rank " << r;
}

// ---- Valid and deadlock-free -----------------------------------------------------------------------

struct Grid {
  const char* name;
  int p, m;
};

TEST(DualPipeCommPlan, ValidAndDeadlockFreeUnderRendezvous) {
  std::vector<Grid> grid;
  for (int p : {2, 4, 6, 8, 16})
    for (int m : {2 * p, 2 * p + 4, 4 * p + 6}) grid.push_back({"dualpipe", p, m});
  for (int p : {1, 3, 4, 5, 8, 16})
    for (int m : {2 * p, 2 * p + 1, 2 * p + 4}) grid.push_back({"dualpipev", p, m});
  for (const Grid& g : grid) {
    SCOPED_TRACE(testing::Message() << g.name << " p=" << g.p << " m=" << g.m);
    const Schedule s = lowered(generate_schedule(g.name, {g.p, g.m, 0}));
    validate(s);
    validate_comms(s);
    EXPECT_EQ(lower(generate_schedule(g.name, {g.p, g.m, 0}), CommPlan::Framework).comms, s.comms)
        << "the plan `framework` means for DeepSeek's schedules";
    const CommTiming t = time_lowered(s, ActionTimes{1, 2, 1, std::nullopt}, {0.001, P2pMode::Rendezvous, 1, false});
    EXPECT_FALSE(t.deadlock) << t.deadlock->report(s);
    // At most one batch before each compute, every batch waited at once (_commit_and_wait_comm).
    for (int r = 0; r < s.ranks; ++r)
      for (std::size_t b = 0; b < s.comms[r].size(); ++b) {
        EXPECT_EQ(s.comms[r][b].wait, CommWait::Now);
        if (b > 0) {
          EXPECT_LT(s.comms[r][b - 1].before, s.comms[r][b].before);
        }
      }
  }
}

// ---- What the plan refuses -------------------------------------------------------------------------

TEST(DualPipeCommPlan, RefusesAnotherSchedulesPlacement) {
  const Schedule one_f_one_b = generate_1f1b({4, 8, 0});
  EXPECT_THROW(lowered(one_f_one_b), InputError);
  EXPECT_EQ(error_of([&] { lowered(one_f_one_b); }),
            "--comm-plan dualpipe: schedule 1f1b does not place its stages as DualPipe (two directions) or DualPipeV "
            "(a V) does: the dualpipe plan lowers only DualPipe's own order");
}

TEST(DualPipeCommPlan, RefusesAnOrderDualPipeDoesNotRun) {
  // ZB-V has DualPipeV's placement but not its order: the plan names the first op where they part,
  // rank 0's 18th, the main step's first (F;B) pair in DualPipeV (dpv4x10.txt, rank 0, item 29).
  EXPECT_THROW(lowered(generate_zbv({4, 10, 0})), InputError);
  const std::string zbv = error_of([] { lowered(generate_zbv({4, 10, 0})); });
  EXPECT_TRUE(zbv.starts_with("--comm-plan dualpipe: rank 0, position 18 runs ")) << zbv;
  EXPECT_TRUE(
      zbv.ends_with(", but DualPipeV's step() runs (0F7;7B3) there: the dualpipe plan lowers only "
                    "DualPipe's own order"))
      << zbv;

  // DualPipe's middle rank runs its first main-step F0 and B1 apart (dualpipe.py 385-391); overlapping
  // them is not DualPipe's order.
  Schedule pair = generate_dualpipe({4, 10, 0});
  auto& rank1 = pair.programs[1];
  ASSERT_EQ(to_string(rank1[4]), "1F2");
  ASSERT_EQ(to_string(rank1[5]), "6B5");
  rank1[4] = Op(rank1[4].first, rank1[5].first);
  rank1.erase(rank1.begin() + 5);
  EXPECT_EQ(error_of([&] { lowered(pair); }),
            "--comm-plan dualpipe: rank 1, position 5 runs (1F2;6B5), but DualPipe's step() runs 1F2 there: the "
            "dualpipe plan lowers only DualPipe's own order");

  Schedule shorter = generate_dualpipe({4, 10, 0});
  shorter.programs[0].pop_back();
  EXPECT_EQ(error_of([&] { lowered(shorter); }),
            "--comm-plan dualpipe: rank 0, position 18 is past the end of its program, but DualPipe's step() runs "
            "0W4 there: the dualpipe plan lowers only DualPipe's own order");

  Schedule fewer = generate_dualpipev({4, 10, 0});
  fewer.microbatches = 7;
  fewer.layout = StageLayout::chain(v_placement(4), 7);
  EXPECT_EQ(error_of([&] { lowered(fewer); }),
            "--comm-plan dualpipe: DualPipeV's step() needs at least 2 × 4 = 8 micro-batches, not 7");
}

}  // namespace
}  // namespace pipegrid
