// Tags that name each message to a GPU uniquely: a pipeline result, or one step of one collective.
#pragma once

#include <cstdint>

namespace pipegrid::sim {

enum class TagSpace : std::uint64_t {
  Pipeline = 0,
  Tensor = 1,
  Data = 2,
  Embedding = 3,
  StageCopies = 4,
  Expert = 5,
  Validation = 6,  // the optimizer's post-validation chain
  Context = 7,     // context parallelism's KV sends and all-to-alls
  Fsdp = 8,        // ZeRO-3's all-gathers and reduce-scatters
};

/// At most this many training steps per run: tags keep the step in 8 bits.
inline constexpr int kMaxSteps = 256;

/// A pipeline result of training step `step`, by its ResultIndex (schedules/results.h).
constexpr std::uint64_t pipeline_tag(std::uint64_t result_index, std::uint64_t step = 0) {
  return (step << 48) | result_index;
}

/// The post-validation message of `step` from one pipeline rank to its neighbour, forward (towards
/// the last rank) or back.
constexpr std::uint64_t validation_tag(std::uint64_t step, bool backward) {
  return (static_cast<std::uint64_t>(TagSpace::Validation) << 60) | (step << 1) | (backward ? 1 : 0);
}

/// The context of a gradient collective of `step`: bits 32-39 (gradient_tag keeps 40 bits of it).
constexpr std::uint64_t step_context(std::uint64_t step, std::uint64_t context) { return (step << 32) | context; }

/// The context of ZeRO-3's collective of `unit` (0 the root, k the k-th block) of virtual stage
/// `stage`: its all-gather before the F (`backward` false) or the B of `microbatch`, or its
/// reduce-scatter. Within step_context's 32 bits: the run layer bounds stage < 1024, microbatch <
/// 2048 and unit < 512.
constexpr std::uint64_t fsdp_context(bool gather, bool backward, std::uint64_t stage, std::uint64_t microbatch,
                                     std::uint64_t unit) {
  return (gather ? std::uint64_t{1} << 31 : 0) | (backward ? std::uint64_t{1} << 30 : 0) | (stage << 20) |
         (microbatch << 9) | unit;
}

/// Step `step` of the `index`-th tensor-parallel all-reduce inside the op at `position` of the
/// rank's program. The TP group's members run the same program, so they agree on it.
constexpr std::uint64_t tensor_tag(std::uint64_t position, std::uint64_t index, std::uint64_t step) {
  return (static_cast<std::uint64_t>(TagSpace::Tensor) << 60) | (position << 28) | (index << 14) | step;
}

/// Step `step` of a gradient all-reduce after the step (data-parallel, tied-embedding, or the sum of a
/// model stage's copies, which `context` tells apart: the first model stage summed).
constexpr std::uint64_t gradient_tag(TagSpace space, std::uint64_t step, std::uint64_t context = 0) {
  return (static_cast<std::uint64_t>(space) << 60) | (context << 20) | step;
}

/// The message from EP member `src_member` in the all-to-all of `phase` (0-3: a chunk's dispatch and
/// combine, forward and backward) of the op at `position`; phases 4-7 are the ETP group's rings
/// around the experts, `src_member` then the ring's step.
constexpr std::uint64_t expert_tag(std::uint64_t position, std::uint64_t phase, std::uint64_t src_member) {
  return (static_cast<std::uint64_t>(TagSpace::Expert) << 60) | (position << 24) | (phase << 20) | src_member;
}

/// The `index`-th context-parallel message (a ring send, or all-to-all `index` from member `member`)
/// inside the op at `position`: the CP group's members run the same program, so they agree on it.
constexpr std::uint64_t context_tag(std::uint64_t position, std::uint64_t index, std::uint64_t member = 0) {
  return (static_cast<std::uint64_t>(TagSpace::Context) << 60) | (position << 32) | (index << 8) | member;
}

}  // namespace pipegrid::sim
