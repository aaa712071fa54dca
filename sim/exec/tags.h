// Tags that name each message to a GPU uniquely: a pipeline result, or one step of one collective.
#pragma once

#include <cstdint>

namespace pipegrid::sim {

enum class TagSpace : std::uint64_t { Pipeline = 0, Tensor = 1, Data = 2, Embedding = 3, StageCopies = 4, Expert = 5 };

/// A pipeline result, by its ResultIndex (schedules/results.h).
constexpr std::uint64_t pipeline_tag(std::uint64_t result_index) { return result_index; }

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
/// combine, forward and backward) of the op at `position`.
constexpr std::uint64_t expert_tag(std::uint64_t position, std::uint64_t phase, std::uint64_t src_member) {
  return (static_cast<std::uint64_t>(TagSpace::Expert) << 60) | (position << 24) | (phase << 20) | src_member;
}

}  // namespace pipegrid::sim
