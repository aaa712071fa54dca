#include "sim/network/flow.h"

namespace pipegrid::sim {

std::string_view flow_kind_name(FlowKind kind) {
  switch (kind) {
    case FlowKind::PipelineP2p: return "p2p";
    case FlowKind::TensorAllReduce: return "tp-allreduce";
    case FlowKind::DataAllReduce: return "dp-allreduce";
    case FlowKind::EmbeddingAllReduce: return "embedding-allreduce";
    case FlowKind::StageCopyAllReduce: return "stage-copy-allreduce";
    case FlowKind::ExpertAllToAll: return "all-to-all";
    case FlowKind::ExpertTensorCollective: return "etp-collective";
    case FlowKind::OptimizerCheck: return "optimizer-check";
    case FlowKind::ContextParallel: return "cp";
  }
  return "?";
}

}  // namespace pipegrid::sim
