"""trace_data against hand-worked truths, and against the simulator's own summary.json.

data/two_rank_trace.csv is docs/commands.md's 1F1B example (p = 2, m = 2, F = 1, B = 2) worked by hand:
    rank 0 |0F0 0F1 ........0B0---- ....0B1----|dp-allreduce
    rank 1 |....1F0 1B0---- 1F1 1B1---- ........
with rank 1's gradient all-reduce over [7, 8] and rank 0's over [9, 10], on two data-parallel replicas
placed pipeline-first (gpu0 pp 0 dp 0, gpu1 pp 1 dp 0, gpu2 pp 0 dp 1, gpu3 pp 1 dp 1). So the step ends
at 10, the computation at 9, and each rank computes 6 of the 10 seconds.
"""
import json
import pathlib
import sys
import tempfile
import unittest

import pandas as pd

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "experiments" / "plot"))
import trace_data  # noqa: E402

DATA = HERE / "data"


class HandWorkedTrace(unittest.TestCase):
    def setUp(self):
        self.trace = trace_data.read_trace(DATA / "two_rank_trace.csv")
        self.timing = trace_data.timing(self.trace)

    def idle(self, gpu):
        return trace_data.row_idle(self.trace, gpu, self.timing.schedule_end, self.timing.makespan)

    def test_step_and_computation_end(self):
        self.assertEqual(self.timing, trace_data.Timing(makespan=10.0, schedule_end=9.0))

    def test_idle_gaps_of_each_rank(self):
        self.assertEqual(self.idle(0), trace_data.RowIdle([(2, 4), (6, 7)], [(9, 10)]))
        self.assertEqual(self.idle(1), trace_data.RowIdle([(0, 1), (7, 9)], [(9, 10)]))
        self.assertEqual(self.idle(0).seconds(), 4)

    def test_idle_share_splits_at_the_last_computation(self):
        rows = trace_data.select_rows(self.trace, "pipeline")
        share = trace_data.idle_share([self.idle(r.gpu) for r in rows], self.timing.makespan)
        # 8 idle seconds of 2 × 10: 6 in the schedule, 2 after rank 0's last backward.
        self.assertAlmostEqual(share.total, 0.4)
        self.assertAlmostEqual(share.in_schedule, 0.3)
        self.assertAlmostEqual(share.after_compute, 0.1)

    def test_pipeline_rows_are_the_tp0_dp0_gpu_of_each_rank(self):
        rows = trace_data.select_rows(self.trace, "pipeline")
        self.assertEqual([(r.gpu, r.label) for r in rows], [(0, "rank 0"), (1, "rank 1")])

    def test_gpu_rows_group_a_ranks_replicas_whatever_their_numbers(self):
        rows = trace_data.select_rows(self.trace, "gpu")
        self.assertEqual([r.gpu for r in rows], [0, 2, 1, 3])
        self.assertEqual(rows[1].label, "node0-gpu2  pp 0 dp 1 tp 0")

    def test_unknown_row_mode(self):
        with self.assertRaisesRegex(ValueError, "rows must be pipeline or gpu, not 'node'"):
            trace_data.select_rows(self.trace, "node")

    def test_comm_rows_of_a_gpu(self):
        comm = trace_data.row_comm(self.trace, 1)
        self.assertEqual(list(comm.kind), ["p2p", "p2p", "dp-allreduce"])
        self.assertEqual(list(comm.comm_class), ["p2p", "p2p", "collective"])


class SimulatorTrace(unittest.TestCase):
    """data/zb-h1-star4 is `pipegrid simulate --platform tests/data/platforms/star-4gpu.xml --schedule zb-h1
    --pp 2 --dp 2 --microbatches 4 --time-f 1 --time-b 2 --time-w 1 --p2p-bytes 1e8`: its summary.json's
    bubble_fraction (1 − compute / (GPUs × makespan)) is the idle share of all GPUs."""

    def test_idle_share_is_the_summarys_bubble_fraction(self):
        summary = json.loads((DATA / "zb-h1-star4" / "summary.json").read_text())
        trace = trace_data.read_trace(DATA / "zb-h1-star4" / "trace.csv")
        timing = trace_data.timing(trace)
        self.assertAlmostEqual(timing.makespan, summary["makespan"], places=9)
        rows = trace_data.select_rows(trace, "gpu")
        idles = [trace_data.row_idle(trace, r.gpu, timing.schedule_end, timing.makespan) for r in rows]
        share = trace_data.idle_share(idles, timing.makespan)
        self.assertAlmostEqual(share.total, summary["bubble_fraction"], places=9)
        busy = {g["host"]: g["busy"] for g in summary["gpus"]}
        host = dict(zip(trace.gpu, trace.host))
        self.assertEqual(len(rows), len(busy))
        for row, idle in zip(rows, idles):
            self.assertAlmostEqual(idle.seconds(), summary["makespan"] - busy[host[row.gpu]], places=9)

    def test_title_comes_from_the_summary(self):
        self.assertEqual(trace_data.trace_title(DATA / "zb-h1-star4" / "trace.csv"), "zb-h1")
        self.assertEqual(trace_data.trace_title(DATA / "two_rank_trace.csv"), "data")


class KindClasses(unittest.TestCase):
    def test_compute_kinds(self):
        expected = {
            "F": ("F", None), "B": ("B", None), "I": ("I", None), "W": ("W", None),
            "F-attention": ("F", "attention"), "F-experts": ("F", "experts"),
            "B-attention": ("B", "attention"), "B-experts": ("B", "experts"), "dense": ("dense", None),
        }
        self.assertEqual({k: trace_data.compute_class(k) for k in expected}, expected)

    def test_comm_kinds(self):
        expected = {
            "p2p": "p2p", "tp-allreduce": "collective", "dp-allreduce": "collective",
            "expert-dp-allreduce": "collective", "embedding-allreduce": "collective",
            "stage-copy-allreduce": "collective", "dispatch": "all-to-all", "combine": "all-to-all",
            "combine-grad": "all-to-all", "dispatch-grad": "all-to-all",
        }
        self.assertEqual({k: trace_data.comm_class(k) for k in expected}, expected)

    def test_unknown_kinds_are_errors_not_guesses(self):
        with self.assertRaisesRegex(ValueError, "unknown compute kind 'X'"):
            trace_data.compute_class("X")
        with self.assertRaisesRegex(ValueError, "unknown communication kind 'F'"):
            trace_data.comm_class("F")


class Lanes(unittest.TestCase):
    def test_an_overlapped_pair_splits_its_row(self):
        # DualPipe's (0F3;7B5): two rows of the trace with one interval, then a W alone.
        trace = pd.DataFrame({
            "gpu": [0, 0, 0], "track": ["compute"] * 3, "kind": ["B", "F", "W"], "stage": [7, 0, 0],
            "microbatch": [5, 3, 2], "start": [0.0, 0.0, 2.0], "end": [2.0, 2.0, 3.0]})
        rows = trace_data.row_compute(trace, 0)
        self.assertEqual(list(zip(rows.kind, rows.lane, rows.lanes)), [("F", 0, 2), ("B", 1, 2), ("W", 0, 1)])
        self.assertEqual(trace_data.merge_intervals(zip(rows.start, rows.end)), [(0.0, 3.0)])

    def test_a_lane_is_reused_once_free(self):
        # [0, 2] and [1, 3] overlap; [2, 4] starts when the first ends: three actions, two lanes.
        self.assertEqual(trace_data.assign_lanes([(0, 2, 0), (1, 3, 0), (2, 4, 0), (5, 6, 0)]),
                         [(0, 2), (1, 2), (0, 2), (0, 1)])


class Intervals(unittest.TestCase):
    def test_merge_and_gaps(self):
        busy = trace_data.merge_intervals([(3, 4), (0, 1), (1, 2), (3.5, 5)])
        self.assertEqual(busy, [(0, 2), (3, 5)])
        self.assertEqual(trace_data.gaps(busy, 0, 7), [(2, 3), (5, 7)])
        self.assertEqual(trace_data.gaps([], 0, 7), [(0, 7)])


class ChunksAndDirections(unittest.TestCase):
    """data/interleaved-pp2 and data/dualpipe-pp4 are `pipegrid simulate --platform
    tests/data/platforms/star-4gpu.xml` with `--schedule interleaved --chunks 2 --pp 2 --microbatches 4` and
    `--schedule dualpipe --pp 4 --microbatches 8`, given the chunk and direction columns in the issue-12
    format by hand."""

    def test_a_trace_without_the_columns_is_one_chunk_no_direction(self):
        trace = trace_data.read_trace(DATA / "two_rank_trace.csv")
        self.assertEqual((trace_data.chunk_count(trace), trace_data.directions(trace)), (1, []))
        self.assertEqual(set(trace.chunk), {0})

    def test_interleaved_chunk_is_the_stage_over_p(self):
        # Megatron's interleaved layout: stage s on rank s mod p, as that rank's chunk s / p.
        trace = trace_data.read_trace(DATA / "interleaved-pp2" / "trace.csv")
        compute = trace[trace.track == "compute"]
        self.assertEqual(list(compute.pp), list(compute.stage % 2))
        self.assertEqual(list(compute.chunk), list(compute.stage // 2))
        self.assertEqual((trace_data.chunk_count(trace), trace_data.directions(trace)), (2, []))
        self.assertEqual(set(trace[trace.track == "comm"].direction), {""})

    def test_dualpipe_up_is_the_half_of_the_microbatches_entering_at_the_last_rank(self):
        # DualPipe feeds micro-batches 0..m/2-1 in at rank 0 and m/2..m-1 in at rank p-1.
        trace = trace_data.read_trace(DATA / "dualpipe-pp4" / "trace.csv")
        forwards = trace[trace.kind == "F"]
        self.assertEqual(list(forwards.direction == "up"), list(forwards.microbatch >= 4))
        first = forwards.sort_values("start").drop_duplicates("microbatch")
        self.assertEqual({int(m): int(r) for m, r in zip(first.microbatch, first.pp)},
                         {0: 0, 1: 0, 2: 0, 3: 0, 4: 3, 5: 3, 6: 3, 7: 3})
        self.assertEqual((trace_data.chunk_count(trace), trace_data.directions(trace)), (2, ["down", "up"]))

    def test_a_higher_chunk_is_a_lighter_shade(self):
        # #3b75af mixed with 60 % white: 59 + 0.6 × 196 = 176.6, 117 + 0.6 × 138 = 199.8, 175 + 0.6 × 80 = 223.
        self.assertEqual(trace_data.chunk_colour("#3b75af", 0, 2), "#3b75af")
        self.assertEqual(trace_data.chunk_colour("#3b75af", 1, 2), "#b1c8df")
        self.assertEqual(trace_data.chunk_colour("#000000", 2, 3), "#999999")  # 0.6 × 255 = 153
        self.assertEqual(trace_data.chunk_colour("#000000", 1, 5), "#262626")  # 0.15 × 255 = 38.25
        self.assertEqual(trace_data.chunk_colour("#3b75af", 0, 1), "#3b75af")

    def test_labels_stay_legible_on_every_shade(self):
        self.assertEqual([trace_data.text_colour(c) for c in ("#3b75af", "#2e9e4f", "#8e6bbf")], ["white"] * 3)
        self.assertEqual([trace_data.text_colour(c) for c in ("#98d68f", "#b8a23a", "#b1c8df")], ["black"] * 3)

    def test_bar_labels_mark_the_chunk(self):
        self.assertEqual(trace_data.bar_labels(3, 0, 1), ["3"])
        self.assertEqual(trace_data.bar_labels(3, 0, 2), ["3"])
        self.assertEqual(trace_data.bar_labels(3, 1, 2), ["3\u2032", "3"])
        self.assertEqual(trace_data.bar_labels(3, 2, 3), ["3\u2033", "3"])
        self.assertEqual(trace_data.bar_labels(12, 3, 4), ["12\u00b7c3", "12"])

    def test_bad_columns_and_directions_are_errors(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "trace.csv"
            lines = (DATA / "interleaved-pp2" / "trace.csv").read_text().splitlines()
            path.write_text("\n".join(lines[:2] + [lines[2].rsplit(",", 1)[0] + ",left"]) + "\n")
            with self.assertRaisesRegex(ValueError, "direction must be down, up or empty, not 'left'"):
                trace_data.read_trace(path)
            path.write_text(lines[0].rsplit(",", 1)[0] + "\n")
            with self.assertRaisesRegex(ValueError, "expected the columns gpu,host,node,tp,dp,pp,track,kind,stage,"
                                        "microbatch,peer,bytes,start,end\\[,chunk,direction\\], got "):
                trace_data.read_trace(path)


if __name__ == "__main__":
    unittest.main()
