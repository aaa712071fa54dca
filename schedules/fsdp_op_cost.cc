#include "schedules/fsdp_op_cost.h"

#include <algorithm>

namespace pipegrid {

FsdpOpUnits fsdp_op_units(const FsdpUnits& units, double compute_seconds, bool backward, bool keep_last_block) {
  FsdpOpUnits op;
  const double share = units.blocks > 0 ? compute_seconds / units.blocks : 0;
  if (units.root > 0 || units.blocks == 0) {
    op.gather.push_back(units.root);
    op.compute.push_back(units.blocks > 0 ? 0 : compute_seconds);
  }
  for (int k = 0; k < units.blocks; ++k) {
    // Backward starts at the last block, which torchtitan's default policy left unsharded.
    const bool kept = backward && keep_last_block && k == 0;
    op.gather.push_back(kept ? 0 : units.block);
    op.compute.push_back(share);
  }
  return op;
}

FsdpOpTiming fsdp_op_timing(const FsdpOpUnits& units) {
  FsdpOpTiming timing;
  const std::size_t n = units.gather.size();
  double gather_free = 0, compute_end = 0, compute = 0;
  double issued = 0;  // unit k's gather may start once unit k − 1's compute may (one in flight)
  for (std::size_t k = 0; k < n; ++k) {
    const double start = std::max(gather_free, issued);
    const double end = start + units.gather[k];
    timing.gather_start.push_back(start);
    timing.gather_end.push_back(end);
    gather_free = end;
    const double compute_start = std::max(compute_end, end);
    issued = compute_start;
    compute_end = compute_start + units.compute[k];
    compute += units.compute[k];
  }
  timing.exposed = std::max(0.0, compute_end - compute);
  return timing;
}

bool fsdp_gathers(FsdpGathers mode, const Action& a, int first_forward) {
  switch (mode) {
    case FsdpGathers::None: return false;
    case FsdpGathers::PerOpKeepLast:
    case FsdpGathers::PerOp: return a.kind != Kind::W;
    case FsdpGathers::OncePerStep:
      return a.kind == Kind::F && a.microbatch == first_forward;
  }
  return false;
}

std::vector<int> first_forwards(const Schedule& schedule) {
  std::vector<int> first(static_cast<std::size_t>(schedule.num_stages()), -1);
  for (const auto& program : schedule.programs)
    for (const Op& op : program)
      for (int i = 0; i < op.size(); ++i)
        if (op[i].kind == Kind::F && first[static_cast<std::size_t>(op[i].stage)] < 0)
          first[static_cast<std::size_t>(op[i].stage)] = op[i].microbatch;
  return first;
}

}  // namespace pipegrid
