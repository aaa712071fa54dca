#include "sim/report/palette.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <utility>

namespace pipegrid::report {

namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kCompute = {{
    {"F", "#3b75af"}, {"B", "#2e9e4f"}, {"I", "#98d68f"}, {"W", "#8e6bbf"}, {"dense", "#b8a23a"}, {"optimizer", "#7f7f7f"},
}};
constexpr std::array<std::pair<std::string_view, std::string_view>, 12> kComm = {{
    {"p2p", "#222222"}, {"tp-allreduce", "#f28e2b"}, {"dp-allreduce", "#d62728"}, {"expert-dp-allreduce", "#e377c2"},
    {"embedding-allreduce", "#8c564b"}, {"stage-copy-allreduce", "#c9a227"}, {"dp-reduce-scatter", "#d62728"},
    {"dp-all-gather", "#ff9896"}, {"dispatch", "#17becf"}, {"combine", "#0f8a96"}, {"combine-grad", "#76d7e0"},
    {"dispatch-grad", "#08555c"},
}};
constexpr std::string_view kUnknown = "#9e9e9e";

template <std::size_t N>
std::string_view find(const std::array<std::pair<std::string_view, std::string_view>, N>& table, std::string_view key) {
  for (const auto& [name, colour] : table)
    if (name == key) return colour;
  return kUnknown;
}

int hex(char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

}  // namespace

std::string_view compute_base(std::string_view kind) {
  // The MoE phases of an op (trace_data.COMPUTE_KINDS): F-attention, F-experts, B-attention, B-experts.
  const std::size_t dash = kind.find('-');
  return dash == std::string_view::npos ? kind : kind.substr(0, dash);
}

std::string_view compute_colour(std::string_view kind) { return find(kCompute, compute_base(kind)); }

bool dark_text_on(std::string_view base) { return base == "I" || base == "dense"; }

std::string_view comm_colour(std::string_view kind) { return find(kComm, kind); }

std::string chunk_shade(std::string_view colour, int chunk) {
  if (chunk <= 0 || colour.size() != 7) return std::string(colour);
  const double towards_white = std::min(0.6, 0.32 * chunk);
  std::string out = "#";
  for (int i = 0; i < 3; ++i) {
    const int c = hex(colour[1 + 2 * i]) * 16 + hex(colour[2 + 2 * i]);
    out += fmt::format("{:02x}", static_cast<int>(c + (255 - c) * towards_white + 0.5));
  }
  return out;
}

}  // namespace pipegrid::report
