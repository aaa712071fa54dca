#include "sim/input/text_values.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "common/message_text.h"
#include "sim/input/option_value.h"
#include "sim/platform/units.h"

namespace pipegrid::input {

namespace {

constexpr double kMaxStageFactor = 1e6;
constexpr double kMaxZipfSkew = 100;
constexpr int kMaxShards = 1'000'000;
constexpr int kMaxStageLayers = 100'000;  // --layers' own bound

template <typename Number>
bool read_whole(std::string_view text, Number& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

// The rule broken, or "".
template <typename Parse>
std::string syntax_of(Parse parse, std::string_view text) {
  try {
    parse(text);
  } catch (const BrokenRule& broken) {
    return broken.rule;
  }
  return "";
}

}  // namespace

std::map<int, double> parse_stage_scale(std::string_view text) {
  std::map<int, double> factors;
  if (text.empty()) return factors;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string_view item = text.substr(begin, end - begin);
    const std::size_t equals = item.find('=');
    int stage = 0;
    double factor = 0;
    if (equals == std::string_view::npos || !read_whole(item.substr(0, equals), stage) ||
        !read_whole(item.substr(equals + 1), factor))
      throw BrokenRule{fmt::format("expected STAGE=FACTOR[,STAGE=FACTOR…], got '{}'", shown(item))};
    if (stage < 0) throw BrokenRule{fmt::format("stage {}: must not be negative", stage)};
    if (!std::isfinite(factor) || factor <= 0 || factor > kMaxStageFactor)
      throw BrokenRule{fmt::format("stage {}: the factor {} must be positive and at most {:g}", stage,
                                   shown(item.substr(equals + 1)), kMaxStageFactor)};
    if (!factors.emplace(stage, factor).second) throw BrokenRule{fmt::format("stage {} appears twice", stage)};
    begin = end + 1;
  }
  return factors;
}

std::string stage_scale_syntax(std::string_view text) { return syntax_of(parse_stage_scale, text); }

LayerSplitText parse_layer_split(std::string_view text) {
  if (text == "even") return {};
  if (text == "balanced") return {LayerSplitText::Rule::Balanced, {}};
  LayerSplitText split{LayerSplitText::Rule::Explicit, {}};
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string_view item = text.substr(begin, end - begin);
    int layers = 0;
    if (!read_whole(item, layers)) throw BrokenRule{fmt::format("expected even, balanced or N1,N2,…, got '{}'", shown(item))};
    if (layers < 1 || layers > kMaxStageLayers)
      throw BrokenRule{fmt::format("stage {}: {} layers; each stage needs 1 to {}", split.layers.size(), layers, kMaxStageLayers)};
    split.layers.push_back(layers);
    begin = end + 1;
  }
  return split;
}

std::string layer_split_syntax(std::string_view text) { return syntax_of(parse_layer_split, text); }

std::vector<int> parse_gpu_counts(std::string_view text) {
  std::vector<int> counts;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string_view item = text.substr(begin, end - begin);
    int gpus = 0;
    if (!read_whole(item, gpus) || gpus < 1) throw BrokenRule{fmt::format("expected N or N1,N2,… GPUs, got '{}'", shown(item))};
    if (std::find(counts.begin(), counts.end(), gpus) != counts.end()) throw BrokenRule{fmt::format("{} appears twice", gpus)};
    counts.push_back(gpus);
    begin = end + 1;
  }
  return counts;
}

std::string gpu_counts_syntax(std::string_view text) { return syntax_of(parse_gpu_counts, text); }

std::string routing_syntax(std::string_view text) {
  if (text == "uniform") return "";
  if (text.starts_with("zipf:")) {
    double skew = -1;
    if (!read_whole(text.substr(5), skew) || !std::isfinite(skew) || skew < 0 || skew > kMaxZipfSkew)
      return fmt::format("the Zipf skew must be a number in [0, {:g}]", kMaxZipfSkew);
    return "";
  }
  if (text.starts_with("file:")) return text.size() > 5 ? "" : "file: needs a path";
  return "expected uniform, zipf:S or file:PATH";
}

std::string routing_file(std::string_view text) {
  return text.starts_with("file:") ? std::string(text.substr(5)) : std::string();
}

ShardText parse_shard(std::string_view text) {
  ShardText shard;
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos || !read_whole(text.substr(0, slash), shard.index) ||
      !read_whole(text.substr(slash + 1), shard.count) || shard.count < 1 || shard.count > kMaxShards ||
      shard.index < 0 || shard.index >= shard.count)
    throw BrokenRule{fmt::format("expected I/K with 0 <= I < K <= {}", kMaxShards)};
  return shard;
}

std::string shard_syntax(std::string_view text) { return syntax_of(parse_shard, text); }

std::string bandwidth_syntax(std::string_view text) {
  const std::optional<double> bandwidth = platform::parse_bandwidth(text);
  if (!bandwidth || !(*bandwidth > 0) || !std::isfinite(*bandwidth))
    return "must be a positive bandwidth such as 25GBps, 200Gbps or bytes per second";
  return "";
}

}  // namespace pipegrid::input
