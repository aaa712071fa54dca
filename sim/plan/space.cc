#include "sim/plan/space.h"

#include <fmt/format.h>
#include <functional>
#include <numeric>
#include <optional>

#include "common/input_error.h"
#include "schedules/generators.h"
#include "sim/input/option_schema.h"
#include "sim/input/option_value.h"

namespace pipegrid::plan {

namespace {

constexpr std::string_view kDerived = "";  // an axis whose default follows from the layout's others

std::vector<std::string> numbers(const std::vector<int>& values) {
  std::vector<std::string> out;
  for (int v : values) out.push_back(std::to_string(v));
  return out;
}

std::vector<int> powers_of_two(int max) {
  std::vector<int> out;
  for (int v = 1; v <= max; v *= 2) out.push_back(v);
  return out;
}

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

// An axis's values when neither --space nor a layout option names it (docs/guide/planning.md, "The space").
std::vector<std::string> default_values(std::string_view axis, const Job& job) {
  const model::Transformer& m = job.model;
  if (axis == "tp") return numbers(powers_of_two(job.allow_tp_across_nodes ? std::min(job.gpus, 64) : job.gpus_per_node));
  if (axis == "pp") return numbers(divisors(job.gpus));
  // Context parallelism pays off on long sequences only; from 8192 tokens on it is searched.
  if (axis == "cp") return m.seq >= 8192 ? numbers({1, 2, 4, 8}) : numbers({1});
  if (axis == "ep") return m.moe.enabled() ? numbers(powers_of_two(std::min(m.moe.experts, job.gpus))) : numbers({1});
  if (axis == "micro-batch") return numbers({1, 2, 4, 8});
  if (axis == "schedule") {
    std::vector<std::string> names;
    for (const GeneratorInfo& g : schedule_generators()) names.emplace_back(g.name);
    return names;
  }
  if (axis == "chunks") return {std::string(kDerived)};  // per pp: interleaving_chunks
  if (axis == "recompute") return {"none", "selective", "full"};
  if (axis == "zero") return {"1"};
  if (axis == "grad-overlap") return {"on"};
  if (axis == "precision") return {"bf16"};
  if (axis == "placement") return {std::string(input::find_option(input::Command::Simulate, "placement")->default_text)};
  if (axis == "cp-algo") return {"ring"};
  if (axis == "layer-split") return {"balanced"};
  return {std::string(kDerived)};  // sequence-parallel, tp-comm-overlap
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    out.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

// The chunks searched when --space does not name them: 0 (the schedule's own) and, for interleaved, every
// v ≥ 2 that divides a rank's layers, as Megatron-LM requires (num_layers_per_virtual_pipeline_stage);
// when pp does not divide the layers (a balanced split), 2, 3, 4, 6 and 8.
std::vector<std::string> interleaving_chunks(int layers, int pp) {
  std::vector<int> values = {0};
  if (pp > 1 && layers % pp == 0) {
    for (int v : divisors(layers / pp))
      if (v >= 2) values.push_back(v);
  } else if (pp > 1) {
    values.insert(values.end(), {2, 3, 4, 6, 8});
  }
  return numbers(values);
}

// The stages a schedule cuts the model into per rank (DualPipe's two copies hold one stage's layers).
int model_stages_per_rank(std::string_view schedule, int chunks) {
  if (schedule == "interleaved") return chunks;
  if (schedule == "zbv" || schedule == "dualpipev") return 2;
  return 1;
}

// A schedule's own rules for (p, m, v), asked once per key: the generator's message, or "".
class ScheduleRules {
 public:
  const std::string& refusal(const std::string& name, int pp, int microbatches, int chunks) {
    const std::string key = fmt::format("{}/{}/{}/{}", name, pp, microbatches, chunks);
    const auto [it, fresh] = refusals_.try_emplace(key);
    if (fresh) try {
        (void)generate_schedule(name, {pp, microbatches, chunks});
      } catch (const InputError& e) {
        it->second = e.what();
      }
    return it->second;
  }

 private:
  std::map<std::string, std::string> refusals_;
};

// The first rule `layout` breaks (its name, as plan.csv's excluded_by), or nothing. dp and
// microbatches are set here once the sizes divide.
std::optional<std::string> broken_rule(Layout& l, const Job& job, ScheduleRules& schedules) {
  const model::Transformer& m = job.model;
  const int tp = l.number("tp"), pp = l.number("pp"), cp = l.number("cp"), ep = l.number("ep");
  const int mb = l.number("micro-batch"), chunks = l.number("chunks");
  if (m.heads % tp != 0 || (!m.mla.enabled() && m.query_groups() % tp != 0) || m.ffn() % tp != 0)
    return "tp: must divide the heads, key-value heads and MLP width";
  if (!job.allow_tp_across_nodes && tp > job.gpus_per_node) return "tp: within a node";
  if (job.gpus % (tp * pp * cp) != 0) return "tp·pp·cp: must divide the GPUs";
  const int dp = job.gpus / (tp * pp * cp);
  l["dp"] = std::to_string(dp);
  const std::string& schedule = l["schedule"];
  const bool interleaved = schedule == "interleaved";
  if (interleaved ? chunks < 2 : chunks != 0) return "chunks: 2 or more for interleaved, the schedule's own (0) else";
  // One rank runs its ops alike whatever the schedule: 1f1b stands for them all.
  if (pp == 1 && schedule != "1f1b") return "pp 1: one schedule (1f1b), the others run the same ops";
  const int stages = pp * model_stages_per_rank(schedule, chunks);
  if (stages > m.layers) return "pp: more stages than layers";
  if (l["layer-split"] == "even" && m.layers % stages != 0) return "layer-split even: the stages must divide the layers";
  if (job.global_batch % (dp * mb) != 0) return "global batch: dp × micro-batch must divide it";
  const int microbatches = job.global_batch / (dp * mb);
  l["microbatches"] = std::to_string(microbatches);
  if (const std::string& why = schedules.refusal(schedule, pp, microbatches, interleaved ? chunks : 0); !why.empty())
    return "schedule: refuses (p, m)";
  if (cp > 1 && l["cp-algo"] == "ring" && m.seq % (2 * cp) != 0) return "cp: 2·cp must divide the sequence";
  if (cp > 1 && l["cp-algo"] == "all-to-all" && m.heads % (tp * cp) != 0) return "cp: tp·cp must divide the heads";
  if (l["sequence-parallel"].empty()) l["sequence-parallel"] = tp > 1 ? "on" : "off";
  if (l.on("sequence-parallel") && tp == 1) return "sequence-parallel: needs tp > 1";
  if (m.moe.enabled() && tp > 1 && !l.on("sequence-parallel")) return "sequence-parallel: MoE with tp > 1 needs it";
  if (ep > 1 && !m.moe.enabled()) return "ep: the model has no experts";
  if (m.moe.enabled() && m.moe.experts % ep != 0) return "ep: must divide the experts";
  if (l["tp-comm-overlap"].empty()) l["tp-comm-overlap"] = "off";
  if (l.on("tp-comm-overlap") && !l.on("sequence-parallel")) return "tp-comm-overlap: needs sequence parallelism";
  return std::nullopt;
}

std::string given_text(const input::OptionValues& v, std::string_view flag) {
  for (const auto& [option, value] : v.given())
    if (option->flag == flag) return input::value_text(*value);
  throw std::logic_error(fmt::format("plan: --{} is not given", flag));
}

// A --space value as simulate's option reads it (--space tp=3x fails as --tp 3x would); flags take on or off.
void check_value(const input::OptionSpec& option, const std::string& value, const std::string& item) {
  if (option.type == input::ValueType::Flag) {
    if (value != "on" && value != "off") throw InputError(fmt::format("--space {}: {}: expected on or off", item, value));
    return;
  }
  try {
    (void)input::parse_value(option, value);
  } catch (const input::BrokenRule& broken) {
    throw InputError(fmt::format("--space {}: {}: {}", item, value, broken.rule));
  }
}

}  // namespace

Space read_space(const input::OptionValues& v) {
  Space space;
  const auto add = [&](std::string axis, std::vector<std::string> values, const std::string& given_as) {
    if (axis == "dp" || axis == "microbatches")
      throw InputError(fmt::format("{}: {} follows from the GPUs and the global batch; restrict tp, pp, cp or "
                                   "micro-batch instead", given_as, axis));
    if (std::find(kAxes.begin(), kAxes.end(), axis) == kAxes.end())
      throw InputError(fmt::format("{}: no axis {}; the axes are {}", given_as, axis, fmt::join(kAxes, ", ")));
    if (!space.values.emplace(axis, std::move(values)).second)
      throw InputError(fmt::format("{}: the axis {} is restricted twice", given_as, axis));
  };
  for (const char* axis : {"tp", "pp", "dp", "cp", "ep", "micro-batch", "microbatches", "schedule", "chunks",
                           "recompute", "zero", "grad-overlap", "precision", "placement", "cp-algo", "layer-split"})
    if (v.has(axis)) add(axis, {given_text(v, axis)}, fmt::format("--{}", axis));
  if (v.has("distributed-optimizer")) add("zero", {"1"}, "--distributed-optimizer");
  if (v.has("sequence-parallel")) add("sequence-parallel", {"on"}, "--sequence-parallel");
  if (v.has("tp-comm-overlap")) add("tp-comm-overlap", {"on"}, "--tp-comm-overlap");
  for (const std::string& item : v.names("space")) {
    const std::size_t equals = item.find('=');
    if (equals == std::string::npos || equals + 1 == item.size())
      throw InputError(fmt::format("--space {}: expected AXIS=V1,V2,…", item));
    const std::string axis = item.substr(0, equals);
    std::vector<std::string> values = split_list(std::string_view(item).substr(equals + 1));
    if (const input::OptionSpec* option = input::find_option(input::Command::Simulate, axis)) {
      for (const std::string& value : values) check_value(*option, value, item);
    }
    add(axis, std::move(values), "--space " + item);
  }
  return space;
}

Enumeration enumerate(const Job& job, const Space& space) {
  std::vector<std::vector<std::string>> lists;
  for (std::string_view axis : kAxes) {
    if (axis == "dp" || axis == "microbatches") {
      lists.push_back({std::string(kDerived)});
      continue;
    }
    const auto given = space.values.find(axis);
    lists.push_back(given != space.values.end() ? given->second : default_values(axis, job));
  }
  Enumeration out;
  ScheduleRules schedules;
  std::vector<std::size_t> at(lists.size(), 0);
  const auto judge = [&](Layout layout) {
    ++out.combinations;
    if (const auto rule = broken_rule(layout, job, schedules))
      ++out.excluded[*rule];
    else
      out.candidates.push_back(std::move(layout));
  };
  for (;;) {
    Layout layout;
    for (std::size_t i = 0; i < lists.size(); ++i) layout.values[i] = lists[i][at[i]];
    if (layout["chunks"] == kDerived) {  // the default chunks follow from pp
      for (const std::string& v : interleaving_chunks(job.model.layers, layout.number("pp"))) {
        layout["chunks"] = v;
        judge(layout);
      }
    } else {
      judge(std::move(layout));
    }
    std::size_t i = lists.size();
    while (i > 0 && ++at[i - 1] == lists[i - 1].size()) at[--i] = 0;
    if (i == 0) break;
  }
  return out;
}

}  // namespace pipegrid::plan
