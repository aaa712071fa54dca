#include "sim/exec/gradient_plan.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/exec/job.h"

namespace pipegrid::sim {

namespace {

// The position of the op that last produces weight gradients of the stage on its rank: its last B,
// or its last W where the backward is split.
std::size_t last_backward(const std::vector<Op>& program, int stage) {
  std::size_t last = program.size();
  for (std::size_t pos = 0; pos < program.size(); ++pos)
    for (int i = 0; i < program[pos].size(); ++i)
      if (program[pos][i].stage == stage && (program[pos][i].kind == Kind::B || program[pos][i].kind == Kind::W))
        last = pos;
  return last;
}

// ZeRO-3: each unit's gradients reduce-scattered over the gradient group (FSDP2's post-backward; d·cp
// GPUs with context parallelism, as torchtitan's dp_shard × cp mesh shards), in the backward's order
// — blocks L…1, then the root. Without a pipeline after every micro-batch's
// backward (torchtitan syncs every micro-batch), a block's as its share of the op's compute ends
// (fsdp_op_cost.h shares it evenly); with one, torch.distributed.pipelining's stage runs post_backward
// once, after the stage's last backward (backward_maybe_with_nosync): all at that op's end.
void add_fsdp_reductions(std::vector<GradientReduction>& out, const JobPlan& plan, const std::vector<Op>& program,
                         int stage, int gpu, std::size_t stream) {
  const StageWork& work = plan.costs.stage(stage);
  const std::vector<int> group = plan.placement.gradient_group(gpu);
  if (group.size() < 2) return;
  GradientReduction r{"fsdp-reducescatter", FlowKind::DataAllReduce, TagSpace::Fsdp, 0, group,
                      plan.placement.rank_in_gradient_group(gpu), 0, 0, 1, stream};
  r.phases = RingPhases::ReduceScatter;
  r.stage = stage;
  const auto add = [&](std::size_t position, int microbatch) {
    const int blocks = work.fsdp_blocks;
    for (int k = 0; k < blocks; ++k) {
      GradientReduction unit = r;
      unit.position = position;
      unit.bytes = work.fsdp_block_gradient_bytes;
      unit.fraction = plan.schedule.ranks == 1 && k + 1 < blocks ? static_cast<double>(k + 1) / blocks : 1.0;
      unit.context = fsdp_context(false, true, static_cast<std::uint64_t>(stage), static_cast<std::uint64_t>(microbatch),
                                  static_cast<std::uint64_t>(blocks - k));
      if (unit.bytes > 0) out.push_back(unit);
    }
    if (work.fsdp_root_gradient_bytes > 0) {
      GradientReduction root = r;
      root.position = position;
      root.bytes = work.fsdp_root_gradient_bytes;
      root.context = fsdp_context(false, true, static_cast<std::uint64_t>(stage), static_cast<std::uint64_t>(microbatch), 0);
      out.push_back(root);
    }
  };
  if (plan.schedule.ranks > 1) {
    add(last_backward(program, stage), 0);
    return;
  }
  for (std::size_t pos = 0; pos < program.size(); ++pos)
    for (int i = 0; i < program[pos].size(); ++i)
      if (program[pos][i].stage == stage && (program[pos][i].kind == Kind::B || program[pos][i].kind == Kind::W))
        add(pos, program[pos][i].microbatch);
}

}  // namespace

bool embedding_goes_first(GradSyncOrder order, const GpuCoordinates& at, int first_rank) {
  switch (order) {
    case GradSyncOrder::Megatron: return false;
    case GradSyncOrder::EmbeddingFirst: return true;
    case GradSyncOrder::ByStage: return at.pp == first_rank;
    case GradSyncOrder::Crossed: return (at.pp + at.dp) % 2 == 0;
  }
  return false;
}

std::vector<GradientReduction> plan_gradient_reductions(const JobPlan& plan, int gpu) {
  const Schedule& s = plan.schedule;
  const GpuCoordinates at = plan.placement.coordinates(gpu);
  const auto& program = s.programs[at.pp];
  const std::size_t end = program.size();
  std::vector<GradientReduction> reductions;

  // Rings by the ranks holding a model stage: each one stream, numbered in order of first use.
  std::map<std::vector<int>, std::size_t> stream_of_ring;
  const auto stream = [&](const std::vector<int>& ring) {
    return stream_of_ring.try_emplace(ring, stream_of_ring.size()).first->second;
  };

  // Data-parallel: per virtual stage on this rank, the ring of every GPU holding its model stage.
  std::map<std::vector<int>, GradientReduction> after_step;  // overlap off: one per ring
  // The model stage Megatron buckets: pipeline rank 0's first chunk. Every member of its ring cuts it
  // the same way (DualPipe's other copy lives on the last rank), or their collectives would not meet.
  int bucketed_model_stage = -1;
  for (int stage = 0; stage < s.num_stages() && bucketed_model_stage < 0; ++stage)
    if (s.rank_of(stage) == 0) bucketed_model_stage = s.layout.model_stage[stage];
  for (int stage = 0; stage < s.num_stages(); ++stage) {
    if (s.rank_of(stage) != at.pp) continue;
    const bool rank0_chunk0 = s.layout.model_stage[stage] == bucketed_model_stage;
    const double bytes = plan.costs.stage(stage).gradient_bytes;
    std::vector<int> ranks;
    for (int other = 0; other < s.num_stages(); ++other)
      if (s.layout.model_stage[other] == s.layout.model_stage[stage]) ranks.push_back(s.rank_of(other));
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    // Per rank holding it, the gradient group (placement.h: d·cp GPUs with context parallelism).
    std::vector<int> ring;
    for (int rank : ranks)
      for (int g : plan.placement.gradient_group(plan.placement.gpu({at.tp, 0, rank, 0}))) ring.push_back(g);
    if (ring.size() < 2 || bytes <= 0) continue;
    const int member = static_cast<int>(std::find(ring.begin(), ring.end(), gpu) - ring.begin());
    const std::uint64_t model_stage = static_cast<std::uint64_t>(s.layout.model_stage[stage]);
    // A model stage held by several ranks (DualPipe's two copies) has a ring, and a stream, of its
    // own: its copies reach their last backwards in different orders on their two ranks, which one
    // stream per ring would serialise into a deadlock.
    std::vector<int> stream_key = ranks;
    if (ranks.size() > 1) stream_key.push_back(-1 - static_cast<int>(model_stage));
    if (plan.options.fsdp != FsdpGathers::None) {
      add_fsdp_reductions(reductions, plan, program, stage, gpu, stream(stream_key));
      continue;
    }
    GradientReduction r{"dp-allreduce", FlowKind::DataAllReduce, TagSpace::Data, model_stage << 12, ring, member,
                        bytes, end, 1, stream(stream_key)};
    if (plan.options.distributed_optimizer) {
      r.kind = "dp-reduce-scatter";
      r.phases = RingPhases::ReduceScatter;
    }
    r.stage = stage;
    r.parameter_bytes = plan.costs.stage(stage).parameter_bytes;
    if (!plan.options.grad_overlap) {
      // One all-reduce per ring of all its gradients on this rank, named by its first model stage.
      auto [it, added] = after_step.try_emplace(ranks, r);
      if (!added) {
        it->second.bytes += bytes;
        it->second.parameter_bytes += r.parameter_bytes;
      }
      it->second.context = std::min(it->second.context, r.context);  // the same smallest on every member
      it->second.stream = stream(ranks);
      continue;
    }
    r.position = last_backward(program, stage);
    const double bucket = plan.options.grad_bucket_bytes;
    const int buckets = rank0_chunk0 && bucket > 0 ? static_cast<int>(std::ceil(bytes / bucket)) : 1;
    for (int b = 0; b < buckets; ++b) {
      GradientReduction part = r;
      part.context = (model_stage << 12) | static_cast<std::uint64_t>(b);
      part.bytes = std::min(bucket, bytes - b * bucket);
      if (buckets == 1) part.bytes = bytes;
      part.parameter_bytes = r.parameter_bytes * part.bytes / bytes;
      part.fraction = buckets == 1 ? 1.0 : std::min(1.0, (b + 1) * bucket / bytes);
      reductions.push_back(part);
    }
  }
  for (auto& [ranks, r] : after_step) reductions.push_back(r);

  // Routed experts: replicated only across expert-parallel groups, their gradients go round the
  // expert-data-parallel group, the GPUs holding the same experts (placement.h).
  double expert_bytes = 0, embedding_bytes = 0;
  for (int stage = 0; stage < s.num_stages(); ++stage)
    if (s.rank_of(stage) == at.pp) {
      expert_bytes += plan.costs.stage(stage).expert_gradient_bytes;
      embedding_bytes += plan.costs.stage(stage).embedding_gradient_bytes;
    }
  const int ep = plan.costs.routing().ep;
  if (expert_bytes > 0 && ep > 0) {
    const std::vector<int> holders = plan.placement.group(gpu, "edp");
    if (holders.size() >= 2)
      reductions.push_back({"expert-dp-allreduce", FlowKind::DataAllReduce, TagSpace::Data, std::uint64_t{1} << 30, holders,
                      plan.placement.rank_in(gpu, "edp"), expert_bytes, end, 1, stream({-1'000'000})});
  }
  const int first = s.rank_of(0), last = s.rank_of(s.num_stages() - 1);
  if (first != last && (at.pp == first || at.pp == last) && embedding_bytes > 0) {
    const bool embedding_first = embedding_goes_first(plan.options.grad_sync_order, at, first);
    reductions.push_back({"embedding-allreduce", FlowKind::EmbeddingAllReduce, TagSpace::Embedding, 0,
                    {plan.placement.gpu({at.tp, at.dp, first, at.cp}), plan.placement.gpu({at.tp, at.dp, last, at.cp})},
                    at.pp == first ? 0 : 1, embedding_bytes, end, 1, stream({-1'000'001}), !embedding_first});
    // The other way round, what is left of the data-parallel reduction at the step's end waits for
    // the embeddings (the buckets the backward already issued are on their way whatever the order).
    if (embedding_first)
      for (GradientReduction& r : reductions)
        if (r.position == end && r.flow_kind == FlowKind::DataAllReduce) r.after_grad_sync = true;
  }
  // Launch order: by readiness; at the step's end, what goes before the wait for the streams first.
  std::stable_sort(reductions.begin(), reductions.end(), [](const GradientReduction& a, const GradientReduction& b) {
    if (a.position != b.position) return a.position < b.position;
    if (a.fraction != b.fraction) return a.fraction < b.fraction;
    return !a.after_grad_sync && b.after_grad_sync;
  });
  return reductions;
}

}  // namespace pipegrid::sim
