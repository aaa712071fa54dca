// A pipeline schedule as plain data: what every rank runs, in order, and where every stage lives.
#pragma once

#include <string>
#include <vector>

#include "schedules/action.h"
#include "schedules/comm_action.h"

namespace pipegrid {

/// Where the virtual stages (model chunks) live and which way data flows through them.
///
/// A micro-batch's forward visits stages along `next` from a first stage (prev == -1) to a last one
/// (next == -1); its backward retraces the chain. Most schedules have one chain 0 → 1 → … → S−1 that
/// every micro-batch follows; the layout keeps the chain explicit so that schedules with several
/// (DualPipe's two directions) use the same checker and engines.
struct StageLayout {
  std::vector<int> rank_of_stage;
  std::vector<int> next;  // the stage after this one in the forward direction, or -1
  std::vector<int> prev;  // the stage before this one, or -1
  /// Micro-batches [first, last) go through the stage.
  std::vector<int> first_microbatch;
  std::vector<int> end_microbatch;
  /// Which slice of the model a virtual stage computes. The identity, except where a model stage has
  /// two copies (DualPipe runs every model stage twice, once per direction).
  std::vector<int> model_stage;

  int num_stages() const { return static_cast<int>(rank_of_stage.size()); }
  int num_model_stages() const;
  bool has_microbatch(int stage, int mb) const {
    return mb >= first_microbatch[stage] && mb < end_microbatch[stage];
  }

  /// One chain 0 → … → S−1 over the given placement, every micro-batch through every stage.
  static StageLayout chain(std::vector<int> rank_of_stage, int microbatches);
  /// DualPipe's two directions over p ranks: virtual stages 0 … p−1 (model stages 0 … p−1 on ranks
  /// 0 … p−1) carry micro-batches [0, m/2); virtual stages p … 2p−1 (model stages 0 … p−1 on ranks
  /// p−1 … 0) carry [m/2, m). Rank r thus holds model stage r of one direction and p−1−r of the other.
  static StageLayout two_directions(int ranks, int microbatches);
};

/// Stage s on rank s mod p: v chunks per rank, round robin (Megatron's interleaved placement).
std::vector<int> loop_placement(int ranks, int chunks);
/// Two chunks per rank folded into a V: rank r holds stages r and 2p − 1 − r (ZB-V, DualPipeV).
std::vector<int> v_placement(int ranks);

/// A schedule: the per-rank programs plus the stage placement and (p, m, v).
///
/// Invariants that `validate` checks (a generator's output always satisfies them): every stage runs
/// F once per micro-batch and either B or I and W once, on the rank that holds it.
struct Schedule {
  std::string name;
  int ranks = 0;         // p, the pipeline-parallel size
  int microbatches = 0;  // m
  int chunks = 1;        // v, virtual stages per rank
  StageLayout layout;
  std::vector<std::vector<Op>> programs;  // programs[rank] in execution order
  /// The communication between the compute ops: comms[rank], its batches in program order. Empty
  /// for a compute-only schedule, which a comm plan lowers (comm_plan.h) before it is timed.
  std::vector<std::vector<CommBatch>> comms;

  int num_stages() const { return layout.num_stages(); }
  int rank_of(int stage) const { return layout.rank_of_stage[stage]; }
  std::size_t num_ops() const;
  bool has_comms() const { return !comms.empty(); }
};

}  // namespace pipegrid
