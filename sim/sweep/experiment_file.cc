#include "sim/sweep/experiment_file.h"

#include <fmt/format.h>
#include <sstream>

#include "common/input_error.h"

namespace pipegrid::sweep {

namespace {

ExperimentKey key(const char* section, const char* name, const char* flag = nullptr) {
  std::string f = flag ? flag : "--" + std::string(name);
  for (char& c : f)
    if (c == '_') c = '-';
  return {section, name, f};
}

std::string where(const std::string& source, const toml::node& node) {
  const auto& begin = node.source().begin;
  return fmt::format("{}:{}:{}", source, begin.line, begin.column);
}

std::string type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    default: return "a date or time";
  }
}

// The flag's value as the command line takes it, or an error naming what was expected.
std::string flag_value(const toml::node& value, const CLI::Option& option, const std::string& at,
                       const ExperimentKey& k) {
  const std::string type = option.get_type_name();
  const auto wrong = [&](const char* expected) {
    return InputError(fmt::format("{}: [{}] {}: expected {}, got {}", at, k.section, k.key, expected, type_name(value)));
  };
  if (option.get_expected_max() == 0) {  // a flag: it takes no value
    if (!value.is_boolean()) throw wrong("a boolean");
    return "";
  }
  if (type.find("INT") != std::string::npos) {
    if (!value.is_integer()) throw wrong("an integer");
    return std::to_string(value.as_integer()->get());
  }
  if (type.find("FLOAT") != std::string::npos) {
    if (value.is_integer()) return std::to_string(value.as_integer()->get());
    if (!value.is_floating_point()) throw wrong("a number");
    return fmt::format("{}", value.as_floating_point()->get());
  }
  if (!value.is_string()) throw wrong("a string");
  return value.as_string()->get();
}

}  // namespace

const std::vector<ExperimentKey>& experiment_keys() {
  static const std::vector<ExperimentKey> keys = {
      key("platform", "file", "--platform"),
      key("parallel", "tp"), key("parallel", "pp"), key("parallel", "dp"), key("parallel", "microbatches"),
      key("parallel", "chunks"), key("parallel", "placement"), key("parallel", "allow_tp_across_nodes"),
      key("parallel", "ep"),
      key("model", "name", "--model"), key("model", "layers"), key("model", "hidden"), key("model", "heads"),
      key("model", "seq"), key("model", "vocab"), key("model", "ffn_hidden"), key("model", "micro_batch"),
      key("model", "recompute"), key("model", "scatter_gather"), key("model", "gradient_bytes"),
      key("model", "distributed_optimizer"), key("model", "uneven_layers"), key("model", "flash_attention"),
      key("model", "compute_efficiency"), key("model", "stage_cost_scale"), key("model", "experts"),
      key("model", "top_k"), key("model", "shared_experts"), key("model", "expert_hidden"),
      key("model", "first_dense_layers"), key("model", "max_nodes_per_token"), key("model", "dispatch_bytes"),
      key("model", "combine_bytes"), key("model", "routing"),
      key("sim", "schedule"), key("sim", "time_f"), key("sim", "time_b"), key("sim", "time_w"), key("sim", "time_fb"),
      key("sim", "p2p_bytes"), key("sim", "p2p_latency"), key("sim", "p2p"), key("sim", "tp_comm"),
      key("sim", "dp_comm"), key("sim", "ep_comm"), key("sim", "comm_sm_fraction"),
      key("output", "out"), key("output", "trace"), key("output", "format"),
  };
  return keys;
}

const ExperimentKey* find_key(const std::string& path) {
  for (const ExperimentKey& k : experiment_keys())
    if (k.path() == path) return &k;
  return nullptr;
}

ExperimentCommand experiment_command(const toml::table& table, const std::string& source, CLI::App& app) {
  ExperimentCommand result;
  if (const auto* sim = table["sim"].as_table())
    if (const auto* command = sim->get("command")) {
      if (!command->is_string())
        throw InputError(fmt::format("{}: [sim] command: expected a string, got {}", where(source, *command),
                                     type_name(*command)));
      result.command = command->as_string()->get();
      if (result.command != "simulate" && result.command != "schedule")
        throw InputError(fmt::format("{}: [sim] command: expected simulate or schedule, got {}",
                                     where(source, *command), result.command));
    }
  CLI::App* sub = app.get_subcommand(result.command);
  for (const auto& [section_name, section_node] : table) {
    const std::string section(section_name.str());
    const toml::table* section_table = section_node.as_table();
    if (!section_table)
      throw InputError(fmt::format("{}: {}: expected a section such as [parallel], got {}",
                                   where(source, section_node), section, type_name(section_node)));
    for (const auto& [key_name, value] : *section_table) {
      const std::string name(key_name.str());
      if (section == "sim" && name == "command") continue;
      const ExperimentKey* k = find_key(section + "." + name);
      if (!k) throw InputError(fmt::format("{}: [{}] {}: unknown key", where(source, value), section, name));
      const CLI::Option* option = sub->get_option_no_throw(k->flag);
      if (!option)
        throw InputError(fmt::format("{}: [{}] {}: `pipegrid {}` has no {}", where(source, value), section, name,
                                     result.command, k->flag));
      const std::string flag = flag_value(value, *option, where(source, value), *k);
      if (option->get_expected_max() == 0) {
        if (value.as_boolean()->get()) result.args.push_back(k->flag);
      } else {
        result.args.push_back(k->flag);
        result.args.push_back(flag);
      }
    }
  }
  return result;
}

toml::table read_toml(const std::string& path) {
  try {
    return toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    const auto& begin = e.source().begin;
    if (begin.line == 0) throw InputError(fmt::format("{}: cannot open the file", path));
    throw InputError(fmt::format("{}:{}:{}: {}", path, begin.line, begin.column, e.description()));
  }
}

std::string canonical_text(const toml::table& table) {
  std::ostringstream out;
  out << table;
  return out.str();
}

std::string stable_hash(const std::string& text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", hash);
}

}  // namespace pipegrid::sweep
