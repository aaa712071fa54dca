#include "sim/model/moe.h"

#include <cmath>
#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include "common/input_error.h"
#include "common/input_file.h"
#include "common/message_text.h"

namespace pipegrid::model {

Routing parse_routing(const std::string& text) {
  Routing routing;
  routing.text = text;
  if (text == "uniform") return routing;
  if (text.starts_with("zipf:")) {
    std::size_t used = 0;
    double s = -1;
    try {
      s = std::stod(text.substr(5), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() - 5 || !std::isfinite(s) || s < 0)
      throw InputError(fmt::format("--routing {}: the Zipf skew must be a number >= 0", text));
    routing.kind = Routing::Kind::Zipf;
    routing.zipf_exponent = s;
    return routing;
  }
  if (text.starts_with("file:")) {
    const std::string path = text.substr(5);
    // A device would be read for ever (/dev/zero): a regular file or a pipe only (a pipe may be a
    // shell's process substitution), and no more than a load per expert can need.
    refuse_directory(path, "--routing " + text);
    std::error_code error;
    const auto type = std::filesystem::status(path, error).type();
    if (type != std::filesystem::file_type::not_found && type != std::filesystem::file_type::regular &&
        type != std::filesystem::file_type::fifo)
      throw InputError(fmt::format("--routing {}: {} is not a regular file or a pipe", text, path));
    std::ifstream in(path);
    if (!in) throw InputError(fmt::format("--routing {}: cannot open {}", text, path));
    // Read in pieces, so that a small file costs a small buffer and an endless pipe stops at the cap.
    constexpr std::size_t kMaxBytes = 16u << 20;
    std::string all;
    char piece[1 << 16];
    while (in.read(piece, sizeof piece) || in.gcount() > 0) {
      all.append(piece, static_cast<std::size_t>(in.gcount()));
      if (all.size() > kMaxBytes) throw InputError(fmt::format("--routing {}: {} is larger than 16 MiB", text, path));
    }
    all = std::string(without_byte_order_mark(all));
    for (char& c : all)
      if (c == ',') c = ' ';
    std::istringstream numbers(all);
    std::string word;
    while (numbers >> word) {
      std::size_t used = 0;
      double load = -1;
      try {
        load = std::stod(word, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != word.size() || !std::isfinite(load) || load < 0)
        throw InputError(fmt::format("--routing {}: load {} ('{}') must be a number >= 0", text,
                                     routing.loads.size() + 1, shown(word)));
      routing.loads.push_back(load);
    }
    routing.kind = Routing::Kind::Loads;
    return routing;
  }
  throw InputError(fmt::format("--routing {}: expected uniform, zipf:S or file:PATH", text));
}

void MoeSpec::validate(int layers) const {
  if (!enabled()) return;
  const auto positive = [](const char* flag, int value) {
    if (value <= 0) throw InputError(fmt::format("{} {}: must be positive", flag, value));
  };
  positive("--experts", experts);
  positive("--top-k", top_k);
  positive("--expert-hidden", expert_hidden);
  positive("--ep", ep);
  if (top_k > experts) throw InputError(fmt::format("--top-k {}: cannot exceed --experts {}", top_k, experts));
  if (experts % ep != 0) throw InputError(fmt::format("--ep {}: must divide --experts {}", ep, experts));
  positive("--etp", etp);
  if (expert_hidden % etp != 0)
    throw InputError(fmt::format("--etp {}: must divide --expert-hidden {} (each GPU holds a column slice of every "
                                 "expert it has; --etp is --tp unless given)",
                                 etp, expert_hidden));
  if (shared_experts < 0) throw InputError(fmt::format("--shared-experts {}: must not be negative", shared_experts));
  if (max_nodes_per_token < 0)
    throw InputError(fmt::format("--max-nodes-per-token {}: must not be negative", max_nodes_per_token));
  if (first_dense_layers < 0 || first_dense_layers > layers)
    throw InputError(fmt::format("--first-dense-layers {}: must be in 0-{}", first_dense_layers, layers));
  if (routing.kind == Routing::Kind::Loads && static_cast<int>(routing.loads.size()) != experts)
    throw InputError(fmt::format("--routing {}: {} loads for {} experts", routing.text, routing.loads.size(), experts));
  if (routing.kind == Routing::Kind::Loads &&
      std::accumulate(routing.loads.begin(), routing.loads.end(), 0.0) <= 0)
    throw InputError(fmt::format("--routing {}: the loads add up to 0", routing.text));
}

std::vector<double> expert_shares(const MoeSpec& moe) {
  std::vector<double> weight(moe.experts, 1.0);
  for (int e = 0; e < moe.experts; ++e) {
    if (moe.routing.kind == Routing::Kind::Zipf) weight[e] = 1 / std::pow(e + 1, moe.routing.zipf_exponent);
    if (moe.routing.kind == Routing::Kind::Loads) weight[e] = moe.routing.loads[e];
  }
  // Water-filling: cap at 1/k, hand the surplus to the uncapped experts in proportion, until none
  // exceeds the cap (at most E rounds; each round caps at least one more expert).
  const double cap = 1.0 / moe.top_k;
  std::vector<double> share(moe.experts, 0);
  std::vector<bool> capped(moe.experts, false);
  double left = 1;
  for (int round = 0; round <= moe.experts; ++round) {
    double free_weight = 0;
    for (int e = 0; e < moe.experts; ++e)
      if (!capped[e]) free_weight += weight[e];
    bool changed = false;
    for (int e = 0; e < moe.experts; ++e) {
      if (capped[e]) continue;
      share[e] = free_weight > 0 ? left * weight[e] / free_weight : 0;
      if (share[e] > cap * (1 + 1e-12)) {
        share[e] = cap;
        capped[e] = true;
        changed = true;
      }
    }
    if (!changed) break;
    left = 1;
    for (int e = 0; e < moe.experts; ++e)
      if (capped[e]) left -= cap;
  }
  return share;
}

std::vector<double> member_shares(const MoeSpec& moe) {
  const std::vector<double> shares = expert_shares(moe);
  std::vector<double> members(moe.ep, 0);
  const int per_member = moe.experts / moe.ep;
  for (int e = 0; e < moe.experts; ++e) members[e / per_member] += shares[e];
  return members;
}

}  // namespace pipegrid::model
