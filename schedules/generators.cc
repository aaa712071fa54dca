#include "schedules/generators.h"

#include <array>
#include <fmt/format.h>
#include <stdexcept>

#include "common/input_error.h"

namespace pipegrid {

namespace {

constexpr std::array kGenerators = {
    GeneratorInfo{"gpipe", "all forwards, then all backwards (Huang et al. 2019)", 1, true, 2, generate_gpipe},
    GeneratorInfo{"1f1b", "one forward, one backward after a warmup (PipeDream-Flush)", 1, true, 2, generate_1f1b},
    GeneratorInfo{"interleaved", "1F1B over v chunks per rank in Megatron-LM's order (Narayanan et al. 2021)", 2,
                  false, 2, generate_interleaved},
    GeneratorInfo{"zb-h1", "1F1B with the backward split, W deferred into the bubbles (Qi et al. 2024)", 1, true, 3,
                  generate_zb_h1},
    GeneratorInfo{"zb-h2", "zero bubble with 2p - 1 warmup forwards (Qi et al. 2024)", 1, true, 3, generate_zb_h2},
    GeneratorInfo{"zbv", "two chunks per rank in a V, zero bubble at 1F1B's memory (Qi et al. 2024)", 2, true, 3,
                  generate_zbv},
    GeneratorInfo{"dualpipe", "micro-batches from both ends, overlapped F&B pairs (DeepSeek-V3)", 2, true, 3,
                  generate_dualpipe},
    GeneratorInfo{"dualpipev", "DualPipe cut in half: a V over p ranks (DeepSeek, Sea AI Lab)", 2, true, 3,
                  generate_dualpipev},
};

std::string known_names() {
  std::string names;
  for (const auto& g : kGenerators) names += (names.empty() ? "" : ", ") + std::string(g.name);
  return names;
}

}  // namespace

std::span<const GeneratorInfo> schedule_generators() { return kGenerators; }

const GeneratorInfo* find_generator(std::string_view name) {
  for (const auto& g : kGenerators)
    if (g.name == name) return &g;
  return nullptr;
}

Schedule generate_schedule(std::string_view name, ScheduleParams params) {
  const GeneratorInfo* generator = find_generator(name);
  if (!generator) throw InputError(fmt::format("--schedule {}: unknown schedule; known: {}", name, known_names()));
  // The option schema holds --pp, --microbatches and --chunks to their ranges: a caller past it that
  // breaks them is a bug.
  if (params.ranks < 1 || params.microbatches < 1 || params.chunks < 0)
    throw std::invalid_argument(fmt::format("generate_schedule: {} ranks, {} micro-batches, {} chunks", params.ranks,
                                            params.microbatches, params.chunks));
  if (params.chunks == 0) params.chunks = generator->default_chunks;
  if (generator->chunks_are_fixed && params.chunks != generator->default_chunks)
    throw InputError(fmt::format("--chunks {}: {} has {} chunk(s) per rank", params.chunks, name,
                                 generator->default_chunks));
  return generator->generate(params);
}

}  // namespace pipegrid
