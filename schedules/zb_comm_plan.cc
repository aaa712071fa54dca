// The zero-bubble repository's lowering (sail-sg/zero-bubble-pipeline-parallelism @ 39f2c186,
// megatron/core/pipeline_parallel/zerobubble/): the compute timed as scheduler/passes.py's add_time
// does, a SEND right after its producer and each RECV early in its receiver's list
// (scheduler/communication.py), every comm node its own isend or irecv (runtime.py), a receive waited
// before its consumer and a send never. docs/schedules.md, "The zero-bubble comm plan".
#include <algorithm>
#include <iterator>
#include <list>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "common/input_error.h"
#include "schedules/framework_plans.h"
#include "schedules/messages.h"
#include "schedules/timing.h"

namespace pipegrid {

namespace {

// One node of a rank's list as the repo's passes build it: a compute op or a comm action, with its
// time (a comm node's start and completion are both its message's time, the producer's completion).
struct Node {
  std::optional<CommAction> comm;  // nullopt: the compute op programs[rank][op]
  std::size_t op = 0;
  double start = 0;
  double end = 0;
  int pair = -1;  // a comm node's CommPair
};

// communication.py's CommPair: a SEND and its RECV, and the RECV's deadline (the consumer op).
struct Pair {
  int sender;
  int receiver;
  double time;           // the producer's completion
  std::size_t consumer;  // the reading op's position in programs[receiver]
  CommAction send;
  CommAction recv;
  std::size_t send_index = 0;  // the SEND's position in its list once every SEND is in (send_index_map)
};

// A rank's list: a linked list, as the repo's Python list is spliced in the middle at every SEND and
// RECV (a vector's inserts made lowering quadratic in the micro-batches: half of a 512-GPU plan's
// estimates, perf 2026-12-08). Positions are iterators; a cursor past the end stays at the end.
using NodeList = std::list<Node>;
using NodeAt = NodeList::iterator;

NodeAt find_node(NodeList& list, NodeAt from, auto match) {
  return std::find_if(from, list.end(), match);
}

}  // namespace

void lower_zb(Schedule& s) {
  // add_time's costs: the runtime's first schedule (runtime.py 1340-1351) takes f = b = w = 1000 and
  // c = 1, its b being our I, so ActionTimes{f 1000, B = I + W 2000, W 1000} (a full B, the repo's
  // BW, costs b + w there too). add_time starts a node at max(the end of its stage's previous node,
  // its one input's completion + c when the input was computed on another stage, i.e. device) — the
  // inputs of graph.py get_prev_key (153-169), which are input_of's. That is time_schedule with
  // latency c, op for op: for the ZB-H1 and ZB-V p = 2, m = 4 examples the two give the same start
  // and completion times (tests/schedules/zb_comm_plan_test.cc, against the times add_time prints).
  const Timing timing = time_schedule(s, ActionTimes{1000, 2000, 1000, std::nullopt}, {1, true});
  if (timing.stall) throw InputError(fmt::format("lower {} with the zb plan: the compute order deadlocks", s.name));

  std::vector<NodeList> lists(s.ranks);
  std::vector<std::vector<NodeAt>> op_node(s.ranks);  // each compute op's node, which never moves
  const ResultIndex index(s.num_stages(), s.microbatches);
  std::vector<std::size_t> producer(index.size(), 0);  // the op that makes each result, on its rank
  for (int rank = 0; rank < s.ranks; ++rank)
    for (std::size_t pos = 0; pos < s.programs[rank].size(); ++pos) {
      const OpSpan& span = timing.spans[rank][pos];
      op_node[rank].push_back(lists[rank].insert(lists[rank].end(), Node{std::nullopt, pos, span.start, span.end}));
      const Op& op = s.programs[rank][pos];
      for (int i = 0; i < op.size(); ++i)
        if (const auto out = output_of(op[i])) producer[index(*out)] = pos;
    }

  // insert_send_nodes (219-286): for every F/B/BW whose input comes from another device (W has no
  // comm, 233; the V-turn on the last rank stays on its device, 253), in stage-then-list order,
  // a pair whose SEND goes right after the producer — past any later node that starts before the send
  // (276-284): none without offload nodes.
  std::vector<Pair> pairs;
  for (int rank = 0; rank < s.ranks; ++rank)
    for (std::size_t pos = 0; pos < s.programs[rank].size(); ++pos) {
      const Op& op = s.programs[rank][pos];
      for (int i = 0; i < op.size(); ++i) {
        const auto in = input_of(s.layout, op[i]);
        if (op[i].kind == Kind::W || !in || s.rank_of(in->stage) == rank) continue;
        const int sender = s.rank_of(in->stage);
        const std::size_t made = producer[index(*in)];
        const double time = timing.spans[sender][made].end;
        pairs.push_back({sender, rank, time, pos, send_of(*in), receive_of(s.layout, *in)});
        auto& list = lists[sender];
        const NodeAt at = find_node(list, std::next(op_node[sender][made]), [&](const Node& n) { return n.start >= time; });
        list.insert(at, Node{pairs.back().send, 0, time, time, static_cast<int>(pairs.size() - 1)});
      }
    }
  for (NodeList& list : lists) {
    std::size_t k = 0;
    for (const Node& n : list) {
      if (n.pair >= 0) pairs[n.pair].send_index = k;
      ++k;
    }
  }

  // insert_recv_nodes' sort (301-314): two pairs from one device in that device's list order, from
  // two devices by the send's time, ties kept in insert order (a stable sort). Sorted by time, then
  // within a tie each device's pairs put in list order in the places they hold (the same wherever
  // cmp_pair is a consistent order, i.e. unless one op sends two messages).
  std::vector<int> order(pairs.size());
  for (std::size_t id = 0; id < pairs.size(); ++id) order[id] = static_cast<int>(id);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return pairs[a].time < pairs[b].time; });
  for (std::size_t lo = 0, hi = 0; lo < order.size(); lo = hi) {
    for (hi = lo; hi < order.size() && pairs[order[hi]].time == pairs[order[lo]].time; ++hi) {
    }
    for (std::size_t k = lo; k < hi; ++k)
      for (std::size_t j = k + 1; j < hi; ++j)
        if (pairs[order[j]].sender == pairs[order[k]].sender && pairs[order[j]].send_index < pairs[order[k]].send_index)
          std::swap(order[j], order[k]);
  }

  // insert_recv_nodes (318-365): start_indices[d] is past the last node of d the walk has handled —
  // its last RECV, or its last SEND (323-327). The RECV goes at the first node from there that
  // completes at or after the send's time (the compute still running when the message leaves), is
  // the consumer, or is a SEND (358-363); the repo asserts the consumer comes later (368-369).
  std::vector<NodeAt> start(s.ranks);
  for (int rank = 0; rank < s.ranks; ++rank) start[rank] = lists[rank].begin();
  for (const int id : order) {
    const Pair& pair = pairs[id];
    const NodeAt sent = find_node(lists[pair.sender], start[pair.sender], [&](const Node& n) { return n.pair == id; });
    start[pair.sender] = sent == lists[pair.sender].end() ? sent : std::next(sent);
    auto& list = lists[pair.receiver];
    const auto is_consumer = [&](const Node& n) { return !n.comm && n.op == pair.consumer; };
    const NodeAt at = find_node(list, start[pair.receiver], [&](const Node& n) {
      return pair.time <= n.end || is_consumer(n) || (n.comm && is_send(n.comm->kind));
    });
    // The consumer is at or after `at` when the first compute op from there is not past it: the
    // compute nodes keep their program order.
    const NodeAt next_op = find_node(list, at, [](const Node& n) { return !n.comm; });
    if (next_op == list.end() || next_op->op > pair.consumer)
      throw InputError(fmt::format("lower {} with the zb plan: rank {} cannot receive {} before op {} reads it", s.name,
                                   pair.receiver, to_string(pair.recv), pair.consumer));
    start[pair.receiver] = std::next(list.insert(at, Node{pair.recv, 0, pair.time, pair.time, id}));
  }

  // Each comm node is posted where it stands and waited at its use.
  for (int rank = 0; rank < s.ranks; ++rank) {
    std::size_t ops = 0;
    for (const Node& n : lists[rank]) {
      if (n.comm)
        s.comms[rank].push_back(CommBatch{ops, CommWait::AtUse, {*n.comm}});
      else
        ++ops;
    }
  }
}

}  // namespace pipegrid
