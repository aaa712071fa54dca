"""deadlock_data against hand-worked truths: which rows a deadlock hatches from when, which arrows its
waits draw, and its wait-for graph.

data/rendezvous-1f1b-pp4 is `pipegrid simulate --platform tests/data/platforms/star-4gpu.xml --schedule
1f1b --pp 4 --microbatches 8 --p2p rendezvous --comm-plan blocking-calls` (F = 1 s, B = 2 s, 2 ms a hop),
its trace given the chunk and direction columns and its deadlock.json the issue-12 fields by hand:
    rank 0 |0F0 0F1 0F2 0F3|blocked sending 0F3 (rank 1 is not receiving)
    rank 1 |    1F0 1F1 1F2|blocked sending 1F2
    rank 2 |        2F0 2F1|blocked sending 2F1 to rank 3, which is sending 3B0 back: both send first
    rank 3 |            3F0 3B0----|blocked at 6.006 s
data/unmatched-receive is a static checker's GPipe run (p = 2, m = 2, F = 1, B = 2) in which rank 1
skips 1B1: it ends its step at 1 + 1 + 1 + 2 = 5 s, and rank 0, having run 0B0 over [5, 7], waits for
ever for 1B1's gradient: an open chain, not a cycle.
data/crossed-grad-sync is the executor's deadlock.json and trace.csv of `pipegrid simulate --platform
tests/data/platforms/star-4gpu.xml --schedule 1f1b --pp 2 --dp 2 --microbatches 2 --layers 2 --hidden 256
--heads 4 --seq 128 --vocab 1024 --compute-efficiency 0.5 --grad-overlap off --grad-sync-order crossed
--trace all`: gpu0 (pp 0 dp 0) waits for gpu2 (pp 1 dp 0) to enter the embedding all-reduce, gpu2 for gpu3
(pp 1 dp 1) to enter rank 1's data-parallel one, gpu3 for gpu1 (pp 0 dp 1) to enter the embeddings, gpu1
for gpu0 to enter rank 0's data-parallel one: between ranks, 0 → 0, 0 → 1, 1 → 0, 1 → 1.
"""
import dataclasses
import math
import pathlib
import sys
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "experiments" / "plot"))
import deadlock_data  # noqa: E402
import trace_data  # noqa: E402
from trace_data import Row  # noqa: E402

DATA = HERE / "data"


def load(name, mode="pipeline"):
    trace = trace_data.read_trace(DATA / name / "trace.csv")
    deadlock = deadlock_data.read_deadlock(deadlock_data.beside(DATA / name / "trace.csv"))
    rows = deadlock_data.with_blocked_rows(trace_data.select_rows(trace, mode), deadlock)
    last_end = [float(trace[trace.gpu == r.gpu].end.max()) for r in rows]
    return trace, deadlock, rows, last_end


class RendezvousCycle(unittest.TestCase):
    def setUp(self):
        self.trace, self.deadlock, self.rows, self.last_end = load("rendezvous-1f1b-pp4")
        self.hatches = deadlock_data.hatches(self.deadlock, self.rows, self.last_end)

    def test_the_file_reads(self):
        d = self.deadlock
        self.assertEqual((d.engine, d.time, d.open, d.shape), ("executor", 6.006, False, "send-send"))
        self.assertEqual([(w.rank, w.waits_for, w.awaited()) for w in d.cycle],
                         [(2, 3, "receive 2F1"), (3, 2, "receive 3B0")])
        self.assertEqual(deadlock_data.title(d), "DEADLOCK at t = 6.006 s: rank 2 waits for rank 3 to receive "
                                                 "2F1, which waits for rank 2 to receive 3B0")

    def test_every_rank_is_hatched_from_the_end_of_its_last_action(self):
        # The executor's blocked_since is the end of the rank's last finished action: the trace says when.
        self.assertEqual([(h.row, h.label) for h in self.hatches],
                         [(0, "[0SEND_F3]"), (1, "[1SEND_F2]"), (2, "[2SEND_F1]"), (3, "[3SEND_B0]")])
        for h in self.hatches:
            self.assertAlmostEqual(h.since, self.last_end[h.row], places=9)

    def test_arrows_join_the_blocked_points_cycle_first(self):
        arrows = deadlock_data.arrows(self.deadlock, self.rows, self.hatches, self.last_end)
        self.assertEqual([(a.source, a.x0, a.target, a.x1, a.label, a.in_cycle) for a in arrows], [
            (2, 4.008, 3, 6.006, "receive 2F1", True), (3, 6.006, 2, 4.008, "receive 3B0", True),
            (0, 4.01, 1, 4.01, "receive 0F3", False), (1, 4.01, 2, 4.008, "receive 1F2", False)])

    def test_the_axis_ends_a_little_after_the_deadlock(self):
        end = deadlock_data.axis_end(self.deadlock, trace_data.timing(self.trace).makespan)
        self.assertAlmostEqual(end, 6.006 * 1.12)

    def test_wait_for_graph(self):
        nodes, edges = deadlock_data.graph(self.deadlock)
        self.assertEqual(nodes, [0, 1, 2, 3])
        self.assertEqual([(e.source, e.target, e.label, e.in_cycle) for e in edges], [
            (0, 1, "receive 0F3", False), (1, 2, "receive 1F2", False),
            (2, 3, "receive 2F1", True), (3, 2, "receive 3B0", True)])


class OpenChain(unittest.TestCase):
    def setUp(self):
        self.trace, self.deadlock, self.rows, self.last_end = load("unmatched-receive")

    def test_only_the_waiting_rank_is_hatched(self):
        hatches = deadlock_data.hatches(self.deadlock, self.rows, self.last_end)
        self.assertEqual(hatches, [deadlock_data.Hatch(0, 7.0, "0B1")])
        self.assertEqual(self.last_end, [7.0, 5.0])

    def test_the_last_arrow_ends_where_the_finished_rank_ended(self):
        hatches = deadlock_data.hatches(self.deadlock, self.rows, self.last_end)
        arrows = deadlock_data.arrows(self.deadlock, self.rows, hatches, self.last_end)
        self.assertEqual(arrows, [deadlock_data.Arrow(0, 7.0, 1, 5.0, "compute 1B1", True)])

    def test_graph_names_the_finished_rank(self):
        nodes, edges = deadlock_data.graph(self.deadlock)
        self.assertTrue(self.deadlock.open)
        self.assertEqual(nodes, [0, 1])
        self.assertEqual(deadlock_data.blocked_ranks(self.deadlock), [0])
        self.assertEqual(edges, [deadlock_data.Edge(0, 1, "compute 1B1", True)])


class CycleThroughReplicasOfOneRank(unittest.TestCase):
    def setUp(self):
        self.trace, self.deadlock, self.rows, self.last_end = load("crossed-grad-sync", "gpu")

    def test_the_ranks_graph_loops_on_each_rank(self):
        d = self.deadlock
        self.assertEqual(d.edges, [(0, 0, "dp-allreduce"), (0, 1, "embedding-allreduce"),
                                   (1, 0, "embedding-allreduce"), (1, 1, "dp-allreduce")])
        self.assertEqual([(w.gpu, w.target_gpu, w.rank, w.dp) for w in d.cycle],
                         [("gpu0", "gpu2", 0, 0), ("gpu2", "gpu3", 1, 0), ("gpu3", "gpu1", 1, 1),
                          ("gpu1", "gpu0", 0, 1)])
        self.assertTrue(deadlock_data.over_gpus(d))

    def test_its_gantt_has_a_row_per_gpu_unless_the_trace_keeps_one_per_rank(self):
        # All four GPUs of the cycle are in the trace: a row each, so the DP waits (gpu2 → gpu3, gpu1 →
        # gpu0) are arrows between rows instead of loops on one. A pipeline trace keeps gpu0 and gpu2.
        self.assertEqual(deadlock_data.rows_mode(self.deadlock, set(self.trace.host)), "gpu")
        self.assertEqual(deadlock_data.rows_mode(self.deadlock, {"gpu0", "gpu2"}), "pipeline")
        rendezvous = load("rendezvous-1f1b-pp4")
        self.assertEqual(deadlock_data.rows_mode(rendezvous[1], set(rendezvous[0].host)), "pipeline")
        self.assertEqual(deadlock_data.rows_mode(None, {"gpu0"}), "pipeline")

    def test_the_graph_over_gpus_is_the_ring_of_the_chain(self):
        nodes, edges = deadlock_data.gpu_graph(self.deadlock)
        # The cycle's order, each GPU with where it is in the grid of ranks.
        self.assertEqual([(n.host, n.label) for n in nodes],
                         [("gpu0", "gpu0\npp 0 dp 0"), ("gpu2", "gpu2\npp 1 dp 0"), ("gpu3", "gpu3\npp 1 dp 1"),
                          ("gpu1", "gpu1\npp 0 dp 1")])
        # The file's order (GPU order), every edge in the cycle: four waits, none queued behind it.
        self.assertEqual([(e.source, e.target, e.label, e.in_cycle) for e in edges], [
            ("gpu0", "gpu2", "collective embedding-allreduce", True),
            ("gpu1", "gpu0", "collective dp-allreduce", True),
            ("gpu2", "gpu3", "collective dp-allreduce", True),
            ("gpu3", "gpu1", "collective embedding-allreduce", True)])

    def test_ranks_as_before_where_the_ranks_graph_shows_the_cycle(self):
        # A file without gpu_edges (another engine, an older executor) keeps the ranks' graph, self-loops or not.
        self.assertFalse(deadlock_data.over_gpus(dataclasses.replace(self.deadlock, gpu_edges=())))
        # gpu_edges but one GPU per rank in the cycle and no rank waiting for itself: the ranks' graph.
        _, rendezvous, _, _ = load("rendezvous-1f1b-pp4")
        self.assertFalse(deadlock_data.over_gpus(rendezvous))
        self.assertFalse(deadlock_data.over_gpus(dataclasses.replace(
            rendezvous, gpu_edges=(("rank 2", "rank 3", "2F1"), ("rank 3", "rank 2", "3B0")))))


class FileBeforeIssue12(unittest.TestCase):
    """data/executor-before-issue12 is today's executor output for 1F1B, rendezvous sends, p = 2, m = 4: only
    time, cycle and blocked, with pp but no rank, and no blocked_since or waits_for."""

    def test_the_cycle_order_says_whom_each_waits_for(self):
        _, deadlock, rows, last_end = load("executor-before-issue12")
        self.assertEqual([(w.rank, w.waits_for, w.awaited()) for w in deadlock.cycle], [(0, 1, "0F1"), (1, 0, "1B0")])
        self.assertTrue(all(math.isnan(w.blocked_since) for w in deadlock.blocked))
        # Hatched from the end of each row's last action: 0F1 ends at 2.002, 1B0 at 4.002.
        hatches = deadlock_data.hatches(deadlock, rows, last_end)
        self.assertEqual([(h.row, h.since) for h in hatches], [(0, 2.002), (1, 4.002)])
        self.assertEqual(deadlock.edges, [(0, 1, "0F1"), (1, 0, "1B0")])

    def test_not_a_deadlock_file(self):
        with self.assertRaisesRegex(ValueError, r"summary.json: not a deadlock.json \('time'\)"):
            deadlock_data.read_deadlock(DATA / "zb-h1-star4" / "summary.json")


class RowsOfWaits(unittest.TestCase):
    """dp 2 placed pipeline-first: gpu0 pp 0 dp 0, gpu1 pp 1 dp 0, gpu2 pp 0 dp 1, gpu3 pp 1 dp 1."""
    GPU_ROWS = [Row(0, "", "gpu0", 0), Row(2, "", "gpu2", 0), Row(1, "", "gpu1", 1), Row(3, "", "gpu3", 1)]
    PIPELINE_ROWS = [Row(0, "rank 0", "gpu0", 0), Row(1, "rank 1", "gpu1", 1)]
    REPLICA = deadlock_data.Wait(0, "gpu2", "[0SEND_F1]", 2.0, 1, "0F1", "receive")

    def test_a_replica_is_drawn_on_its_gpu_row_or_its_ranks_row(self):
        self.assertEqual(deadlock_data.row_index(self.GPU_ROWS, self.REPLICA), 1)
        self.assertEqual(deadlock_data.row_index(self.PIPELINE_ROWS, self.REPLICA), 0)

    def test_a_replicas_arrow_goes_to_the_gpu_it_waits_for(self):
        # dp 1's pair: gpu2 (pp 0) waits for gpu3 (pp 1), not for pp 1's first row, gpu1.
        there = deadlock_data.Wait(0, "gpu2", "[0SEND_F1]", 2.0, 1, "0F1", "receive", "gpu3")
        back = deadlock_data.Wait(1, "gpu3", "[1SEND_B0]", 4.0, 0, "1B0", "receive", "gpu2")
        deadlock = deadlock_data.Deadlock("executor", 4.0, "", [there, back], False, [there, back], [], "", "")
        hatches = deadlock_data.hatches(deadlock, self.GPU_ROWS, [0.0] * 4)
        arrows = deadlock_data.arrows(deadlock, self.GPU_ROWS, hatches, [0.0] * 4)
        self.assertEqual([(a.source, a.target) for a in arrows], [(1, 3), (3, 1)])
        pipeline = deadlock_data.arrows(deadlock, self.PIPELINE_ROWS,
                                        deadlock_data.hatches(deadlock, self.PIPELINE_ROWS, [0.0] * 2), [0.0] * 2)
        self.assertEqual([(a.source, a.target) for a in pipeline], [(0, 1), (1, 0)])

    def test_a_rank_blocked_before_it_finished_anything_gets_a_row(self):
        stuck = deadlock_data.Wait(2, "gpu4", "[2RECV_F0]", 0.0, 1, "1F0", "send")
        deadlock = deadlock_data.Deadlock("executor", 1.0, "", [], False, [self.REPLICA, stuck], [], "", "")
        rows = deadlock_data.with_blocked_rows(self.PIPELINE_ROWS, deadlock)
        self.assertEqual([(r.label, r.host, r.pp) for r in rows],
                         [("rank 0", "gpu0", 0), ("rank 1", "gpu1", 1), ("rank 2", "gpu4", 2)])


class AwaitedLabels(unittest.TestCase):
    def test_a_compute_wait_says_what_it_waits_for_and_a_comm_action_says_itself(self):
        # The checker waits for a result (receive 0F1); the comm engine for the peer's posted action,
        # whose name already says receive: "receive 3RECV_F1" would say it twice.
        self.assertEqual(deadlock_data.Wait(1, "gpu1", "[1SEND_B0]", 4.0, 0, "0F1", "receive").awaited(), "receive 0F1")
        self.assertEqual(deadlock_data.Wait(2, "rank 2", "[2SEND_F1]", 4.0, 3, "3RECV_F1", "receive").awaited(),
                         "3RECV_F1")


if __name__ == "__main__":
    unittest.main()
