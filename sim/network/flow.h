// A flow between two of the job's GPUs: what it carries, for the link accounting, the traces and the
// listeners that wait for it.
#pragma once

#include <cstdint>
#include <string_view>

namespace pipegrid::sim {

/// What a flow carries, for traces and link accounting.
enum class FlowKind : std::uint8_t {
  PipelineP2p,
  TensorAllReduce,
  DataAllReduce,
  EmbeddingAllReduce,
  StageCopyAllReduce,
  ExpertAllToAll,
  ExpertTensorCollective,  // the ETP group's all-gather and reduce-scatter around the experts
  OptimizerCheck,  // post-validation's few bytes between neighbouring pipeline ranks
  ContextParallel,  // a context-parallel ring's KV send, or a piece of a Ulysses all-to-all
};

/// The kind as one word, as failure reports and deadlock.json name it: p2p, tp-allreduce, …
std::string_view flow_kind_name(FlowKind kind);

/// The flows of NCCL collectives; p2p, all-to-all (DeepEP's own kernels) and the optimizer's check are not.
inline bool is_collective(FlowKind kind) {
  return kind == FlowKind::TensorAllReduce || kind == FlowKind::DataAllReduce ||
         kind == FlowKind::EmbeddingAllReduce || kind == FlowKind::StageCopyAllReduce ||
         kind == FlowKind::ExpertTensorCollective;
}

struct FlowInfo {
  FlowKind kind;
  int src_gpu;
  int dst_gpu;
  double bytes;
  int stage = -1;       // pipeline p2p: the result's stage and micro-batch
  int microbatch = -1;
  bool backward = false;
  std::uint64_t tag = 0;  // with dst_gpu, names the message (transfers.h)
};

}  // namespace pipegrid::sim
