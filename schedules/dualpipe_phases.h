// The per-rank loop that DeepSeek's DualPipe and DualPipeV share (deepseek-ai/DualPipe,
// dualpipe/dualpipe.py and dualpipev.py, `step()`): eight phases whose lengths depend only on the
// rank's place in the pipeline and the micro-batches each of its two chunks runs.
#pragma once

#include <array>
#include <vector>

#include "schedules/action.h"

namespace pipegrid {

/// The lengths of DeepSeek's eight phases on one rank, in loop iterations (docs/reference.md). Phase 0
/// is the rank's chunk that micro-batches reach first, phase 1 the other; h is how many stages
/// precede the rank's phase-0 chunk, H the number of values h takes, n the micro-batches per chunk
/// (DualPipe: h = min(r, p − 1 − r), H = p/2, n = m/2; DualPipeV: h = r, H = p, n = m).
struct DualPipePhaseCounts {
  int forward0;                      // nF0: 2(H − h − 1) forwards of chunk 0
  int forward0_forward1;             // nF0F1: h + 1 × (F0, F1)
  int input1_weight1_forward1;       // nB1W1F1: H − h − 1 × (I1, W, F1), zero bubble
  int main;                          // nF0B1F1B0: n − 2H + h + 1 × ((F0;B1), (F1;B0))
  int backward1_forward1_backward0;  // nB1F1B0: H − h − 1 × (B1, (F1;B0))
  int backward1_backward0;           // nB1B0: h + 1 × (B1, B0), the second half split into I and W
  int weight_input0;                 // nWB0: H − h − 1 × (W, I0)
  int weight;                        // nW: h + 1 × W

  static DualPipePhaseCounts of(int h, int H, int n);
};

/// One of a rank's two chunks: its virtual stage and the first micro-batch through it (the
/// micro-batches run in order, one counter for forwards and one for backwards, as dualpipe.py's
/// `current_f_chunk_id` / `current_b_chunk_id`).
struct DualPipeChunk {
  int stage;
  int first_microbatch;
};

/// One rank of a DualPipe-family schedule, as dualpipe.py's `step()` sees it.
struct DualPipeRank {
  int h;  // stages before its phase-0 chunk: dualpipe.py's half_rank, dualpipev.py's rank
  int H;  // dualpipe.py's num_half_ranks, dualpipev.py's num_ranks
  int n;  // micro-batches through each chunk: half_num_chunks, num_chunks
  std::array<DualPipeChunk, 2> chunks;  // phase 0 and phase 1
};

/// The rank's program: the eight phases in order, backwards split into I and W exactly where
/// DeepSeek enables zero bubble (`enable_zb`), each W the oldest pending one (its FIFO
/// WeightGradStore), overlapped (F;B) pairs where it calls `_forward_backward_chunk`.
std::vector<Op> dualpipe_rank_program(const DualPipeRank& rank);

}  // namespace pipegrid
