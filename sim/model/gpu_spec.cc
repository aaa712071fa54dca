#include "sim/model/gpu_spec.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include "common/input_error.h"
#include "sim/model/gpu_files.h"

namespace pipegrid::model {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

toml::table parse(std::string_view text, std::string_view where) {
  try {
    return toml::parse(text);
  } catch (const toml::parse_error& e) {
    throw InputError(fmt::format("{}:{}: {}", where, e.source().begin.line, e.description()));
  }
}

double positive(const toml::table& t, std::string_view key, std::string_view where, bool zero_ok = false) {
  const std::optional<double> v = t[key].value<double>();
  if (!v) throw InputError(fmt::format("{}: {}: missing or not a number", where, key));
  if (!std::isfinite(*v) || *v < 0 || (!zero_ok && *v == 0))
    throw InputError(fmt::format("{}: {} = {}: must be {}", where, key, *v, zero_ok ? "finite and >= 0" : "positive"));
  return *v;
}

std::string_view shipped_text(std::string_view name) {
  for (const DataFile& f : gpu_files())
    if (f.name == name) return f.text;
  throw InputError(fmt::format("platforms/gpus/{}: no such shipped file", name));
}

ComputeConstants parse_constants(const toml::table& c, std::string_view where) {
  ComputeConstants k;
  k.gemm_efficiency = positive(c, "gemm_efficiency", where);
  k.wave_seconds = positive(c, "wave_seconds", where, true);
  k.memory_efficiency = positive(c, "memory_efficiency", where);
  k.kernel_floor_seconds = positive(c, "kernel_floor_seconds", where, true);
  if (c.contains("fp8_gemm_efficiency")) k.fp8_gemm_efficiency = positive(c, "fp8_gemm_efficiency", where);
  if (k.gemm_efficiency > 1 || k.memory_efficiency > 1 || k.fp8_gemm_efficiency > 1)
    throw InputError(fmt::format("{}: an efficiency above 1", where));
  return k;
}

}  // namespace

GpuSpec parse_gpu_spec(std::string_view key, std::string_view gpu_toml, std::string_view where) {
  const toml::table t = parse(gpu_toml, where);
  GpuSpec g;
  g.key = key;
  g.name = t["name"].value_or(std::string(key));
  if (const toml::array* models = t["gpu_models"].as_array())
    for (const toml::node& m : *models)
      if (const auto s = m.value<std::string>()) g.gpu_models.push_back(*s);
  if (g.gpu_models.empty()) throw InputError(fmt::format("{}: gpu_models: missing or empty", where));
  const double sms = positive(t, "sms", where);
  if (sms != std::floor(sms) || sms > 1e6) throw InputError(fmt::format("{}: sms = {}: must be a whole number", where, sms));
  g.sms = static_cast<int>(sms);
  g.tensor_flops = positive(t, "tensor_flops", where);
  // The FP8 peak, the HBM's capacity and the NVLink are optional in a file of one's own (0: not
  // given); every shipped file gives them (tests/model/gpu_files_test.cc).
  const auto optional = [&](std::string_view field) { return t.contains(field) ? positive(t, field, where, true) : 0.0; };
  g.fp8_tensor_flops = optional("fp8_tensor_flops");
  const std::string recipe = t["fp8_recipe"].value_or(std::string("none"));
  const auto known = std::find_if(std::begin(kFp8Recipes), std::end(kFp8Recipes),
                                  [&](const Named<Fp8Recipe>& r) { return r.name == recipe; });
  if (known == std::end(kFp8Recipes))
    throw InputError(fmt::format("{}: fp8_recipe = \"{}\": must be delayed, mxfp8 or none", where, recipe));
  g.fp8_recipe = known->value;
  if ((g.fp8_recipe != Fp8Recipe::None) != (g.fp8_tensor_flops > 0))
    throw InputError(fmt::format("{}: fp8_recipe and fp8_tensor_flops: give both (an FP8 GPU) or neither", where));
  g.hbm_bandwidth = positive(t, "hbm_bandwidth", where);
  g.hbm_capacity = optional("hbm_capacity");
  g.nvlink_bandwidth = optional("nvlink_bandwidth");
  if (const toml::array* tiles = t["gemm_tiles"].as_array())
    for (const toml::node& tile : *tiles) {
      const toml::array* mn = tile.as_array();
      const int m = mn && mn->size() == 2 ? (*mn)[0].value_or(0) : 0;
      const int n = mn && mn->size() == 2 ? (*mn)[1].value_or(0) : 0;
      if (m <= 0 || n <= 0)
        throw InputError(fmt::format("{}: gemm_tiles: each tile is [rows, columns], both positive", where));
      g.gemm_tiles.push_back({m, n});
    }
  if (g.gemm_tiles.empty()) throw InputError(fmt::format("{}: gemm_tiles: missing or empty", where));
  if (const toml::table* own = t["constants"].as_table()) {
    g.calibration = fmt::format("{} [constants]", where);
    g.constants = parse_constants(*own, fmt::format("{}: [constants]", where));
    return g;
  }
  g.calibration = t["calibration"].value_or(std::string(key));
  const std::string calibrated = g.calibration + ".calibrated.toml";
  g.constants = parse_constants(parse(shipped_text(calibrated), calibrated), "platforms/gpus/" + calibrated);
  return g;
}

const std::vector<GpuSpec>& gpu_specs() {
  static const std::vector<GpuSpec> specs = [] {
    std::vector<GpuSpec> out;
    for (const DataFile& f : gpu_files()) {
      const std::string_view name = f.name;
      if (name.ends_with(".calibrated.toml") || !name.ends_with(".toml")) continue;
      out.push_back(parse_gpu_spec(name.substr(0, name.size() - 5), f.text, fmt::format("platforms/gpus/{}", name)));
    }
    return out;
  }();
  return specs;
}

const GpuSpec& shipped_gpu(std::string_view key) {
  std::vector<std::string> keys;
  for (const GpuSpec& g : gpu_specs()) {
    if (g.key == key) return g;
    keys.push_back(g.key);
  }
  throw InputError(fmt::format("platforms/gpus/{}.toml: no such shipped GPU (known: {})", key, fmt::join(keys, ", ")));
}

const GpuSpec& gpu_spec_for_model(std::string_view gpu_model) {
  std::vector<std::string> known;
  for (const GpuSpec& g : gpu_specs()) {
    for (const std::string& m : g.gpu_models)
      if (lower(m) == lower(gpu_model)) return g;
    known.push_back(g.gpu_models.front());
  }
  throw InputError(fmt::format("gpu_model \"{}\": no GPU file describes it (known: {}); name one of those in the "
                               "platform or run with --compute-efficiency",
                               gpu_model, fmt::join(known, ", ")));
}

}  // namespace pipegrid::model
