// Options whose value is a small language of its own: per-stage cost factors, an MoE routing, a sweep
// shard, a bandwidth with its unit. Each has one reader, used both by the schema (to refuse a bad
// value when it is read, file and line included) and by the code that uses the value.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace pipegrid::input {

/// "0=1.3,63=1.5": stage → factor, each factor finite, in (0, 1e6]. Throws BrokenRule.
std::map<int, double> parse_stage_scale(std::string_view text);
std::string stage_scale_syntax(std::string_view text);

/// --layer-split: even, balanced, or each model stage's layers "N1,N2,…" (each at least 1).
struct LayerSplitText {
  enum class Rule { Even, Balanced, Explicit } rule = Rule::Even;
  std::vector<int> layers;  // with Explicit
};
LayerSplitText parse_layer_split(std::string_view text);
std::string layer_split_syntax(std::string_view text);

/// uniform, zipf:S (S finite, >= 0, at most 100) or file:PATH (the loads are read at run time).
std::string routing_syntax(std::string_view text);
/// The file a routing reads, "" for the others.
std::string routing_file(std::string_view text);

/// "I/K" with 0 <= I < K <= 1000000.
struct ShardText {
  int index = 0;
  int count = 1;
};
ShardText parse_shard(std::string_view text);
std::string shard_syntax(std::string_view text);

/// plan --gpus: "N" or "N1,N2,…", each at least 1, none twice.
std::vector<int> parse_gpu_counts(std::string_view text);
std::string gpu_counts_syntax(std::string_view text);

/// A bandwidth as SimGrid writes it ("300GBps", "200Gbps", bytes per second), positive and finite.
std::string bandwidth_syntax(std::string_view text);

}  // namespace pipegrid::input
