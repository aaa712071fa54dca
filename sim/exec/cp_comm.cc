#include "sim/exec/cp_comm.h"

#include <algorithm>

#include "sim/network/collectives.h"

namespace pipegrid::sim {

int cp_next(const Placement& placement, int gpu) {
  const std::vector<int> group = placement.group(gpu, "cp");
  const int c = placement.rank_in(gpu, "cp");
  return group[static_cast<std::size_t>((c + 1) % static_cast<int>(group.size()))];
}

int cp_previous(const Placement& placement, int gpu) {
  const std::vector<int> group = placement.group(gpu, "cp");
  const int n = static_cast<int>(group.size());
  return group[static_cast<std::size_t>((placement.rank_in(gpu, "cp") + n - 1) % n)];
}

CpStageComm cp_stage_comm(Network& network, const Placement& placement, const StageWork& work,
                          const std::vector<int>& members, double speed, bool all_to_all) {
  CpStageComm out;
  const int cp = placement.sizes().cp;
  if (cp == 1 || work.cp_forward_layers + work.cp_backward_layers == 0) return out;
  out.cp = cp;
  out.all_to_all = all_to_all;
  out.forward_layers = work.cp_forward_layers;
  out.backward_layers = work.cp_backward_layers;
  out.recomputed_layers = work.cp_recomputed_layers;
  for (int gpu : members) {
    if (all_to_all) {
      const std::vector<int> group = placement.group(gpu, "cp");
      out.q_alltoall = std::max(out.q_alltoall, all_to_all_seconds(network, group, work.cp_q_bytes));
      out.kv_alltoall = std::max(out.kv_alltoall, all_to_all_seconds(network, group, work.cp_kv_bytes / 2));
      continue;
    }
    const int next = cp_next(placement, gpu);
    out.kv_send = std::max(out.kv_send, p2p_seconds(network, gpu, next, work.cp_kv_bytes));
    out.kv_dkv_send = std::max(out.kv_dkv_send, p2p_seconds(network, gpu, next, 2 * work.cp_kv_bytes));
  }
  // A ring step attends the local queries to one KV block: the layer's attention core ÷ cp (every
  // step alike under the load-balanced split).
  if (!all_to_all) {
    if (out.forward_layers > 0) out.forward_step = work.f_attention_flops / speed / (out.forward_layers * cp);
    if (out.backward_layers > 0) out.backward_step = work.i_attention_flops / speed / (out.backward_layers * cp);
  }
  return out;
}

}  // namespace pipegrid::sim
