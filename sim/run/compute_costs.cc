#include "sim/run/compute_costs.h"

#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/input_error.h"
#include "sim/input/toml_screen.h"
#include "sim/model/gpu_spec.h"
#include "sim/model/kernels.h"

namespace pipegrid::run {
namespace {

// The gpu_model every GPU of the job shares.
const model::GpuSpec& job_gpu(const std::vector<platform::GpuHost>& gpus, const std::string& platform) {
  std::set<std::string> models;
  for (const platform::GpuHost& g : gpus) {
    if (g.model.empty())
      throw InputError(fmt::format("{}: host {} has no gpu_model property; the compute model needs the GPU it "
                                   "describes (A100, H100, H800: platforms/gpus/), or run with --compute-efficiency",
                                   platform, g.name));
    models.insert(g.model);
  }
  if (models.size() > 1)
    throw InputError(fmt::format("{}: the job's GPUs are of several models ({}); the compute model prices one, "
                                 "or run with --compute-efficiency",
                                 platform, fmt::join(models, ", ")));
  return model::gpu_spec_for_model(*models.begin());
}

// A GPU file the user names: a regular file of at most 1 MiB, screened for what Debian's toml++
// reads with undefined behaviour (input/toml_screen.h), then parsed.
model::GpuSpec gpu_file(const std::string& path) {
  const std::string where = fmt::format("--gpu-file {}", path);
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    throw InputError(fmt::format("{}: not a regular file (or missing)", where));
  if (std::filesystem::file_size(path, error) > (1u << 20))
    throw InputError(fmt::format("{}: larger than 1 MiB; a GPU description is a few lines", where));
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot read it", where));
  std::stringstream text;
  text << in.rdbuf();
  if (const std::string why = input::unreadable_by_toml(text.str()); !why.empty())
    throw InputError(fmt::format("{}:{}", where, why));
  return model::parse_gpu_spec(std::filesystem::path(path).stem().string(), text.str(), where);
}

nlohmann::json passes(const model::Flops& f) {
  return {{"F", f.forward}, {"I", f.backward_input}, {"W", f.backward_weight}};
}

// `fp8`: each kernel row ends with whether it ran on the FP8 tensor cores (a bf16 run's rows as before).
nlohmann::json stage_json(int stage, const model::StageCompute& c, bool fp8) {
  std::map<std::string, model::Flops> by_kind;
  nlohmann::json kernels = nlohmann::json::array();
  for (std::size_t k = 0; k < c.kernels.size(); ++k) {
    const model::Kernel& kernel = c.kernels[k];
    const double seconds = c.seconds[k];
    kernels.push_back({kernel.name, model::to_string(kernel.pass),
                       kernel.part == model::Part::Dense ? "dense" : kernel.part == model::Part::Shared ? "shared" : "routed",
                       model::to_string(kernel.kind), kernel.count, kernel.gemm.m, kernel.gemm.n, kernel.gemm.k,
                       kernel.gemm.batch, kernel.flops, kernel.bytes, kernel.recomputed, seconds});
    if (fp8) kernels.back().push_back(kernel.fp8);
    if (kernel.pass == model::Pass::Step) continue;
    model::Flops& f = by_kind[std::string(model::to_string(kernel.kind))];
    (kernel.pass == model::Pass::F ? f.forward : kernel.pass == model::Pass::I ? f.backward_input : f.backward_weight) +=
        seconds;
  }
  nlohmann::json kinds = nlohmann::json::object();
  for (const auto& [kind, f] : by_kind) kinds[kind] = passes(f);
  return {{"stage", stage},
          {"seconds", passes(c.dense + c.shared + c.routed)},
          {"optimizer_seconds", c.optimizer_seconds},
          {"by_kind", kinds},
          {"kernels", kernels}};
}

}  // namespace

ComputeCosts resolve_compute(const ModelSpec& spec, int gradient_bytes, const std::string& platform,
                             const model::Parallelism& par,
                             const std::vector<model::StageCost>& model_stages, const StageLayoutView& layout,
                             const std::vector<platform::GpuHost>& job_gpus, double reference_speed,
                             int microbatches) {
  ComputeCosts out;
  out.optimizer_seconds.assign(layout.ranks, 0);
  const model::Transformer& model = spec.transformer;
  const ComputeSpec& compute = spec.compute;
  const bool distributed = spec.zero >= 1;  // ZeRO-1 and up: each replica updates its shard
  const double optimizer_bytes = compute.optimizer_bytes;
  // Each GPU's shard: the dense parameters' 1/d·cp, the routed experts' 1/edp (ParameterShards).
  const auto updated = [&](const model::StageCost& c) {
    const double dense = static_cast<double>(c.parameters - c.routed_parameters);
    const double routed = static_cast<double>(c.routed_parameters);
    return dense * optimizer_bytes / (distributed ? par.gradient_group_size() : 1) +
           routed * optimizer_bytes / (distributed ? c.expert_data_parallel : 1);
  };

  if (compute.efficiency) {
    // The old model: every FLOP at one efficiency, the optimizer's bytes at --hbm-bandwidth.
    const double efficiency = *compute.efficiency;
    const double hbm = compute.hbm_bandwidth.value_or(2.039e12);
    for (std::size_t s = 0; s < layout.model_stage.size(); ++s) {
      const model::StageCost& c = model_stages[layout.model_stage[s]];
      // The attention core of its layers on this GPU's share (÷ t·cp): what a CP ring step overlaps.
      const model::Flops core = (static_cast<double>(c.layers) / (par.tp * par.cp)) * model::attention_core_flops(model);
      out.work.push_back(model::efficiency_work(c, efficiency, core));
      out.optimizer_seconds[layout.rank[s]] += updated(c) / hbm;
    }
    out.echo = {{"model", "efficiency"}, {"compute_efficiency", efficiency}, {"hbm_bandwidth", hbm},
                {"optimizer_bytes", optimizer_bytes}};
    out.breakdown = {{"model", "efficiency"}, {"compute_efficiency", efficiency}};
    return out;
  }

  model::GpuSpec gpu = !compute.gpu_file.empty() ? gpu_file(compute.gpu_file) : job_gpu(job_gpus, platform);
  if (compute.hbm_bandwidth) gpu.hbm_bandwidth = *compute.hbm_bandwidth;
  const bool fp8 = spec.precision == model::ComputePrecision::Fp8;
  if (fp8 && !(gpu.fp8_tensor_flops > 0))
    throw InputError(fmt::format("--precision fp8: the {} ({}) has no FP8 tensor cores (its GPU file gives no "
                                 "fp8_tensor_flops); run it in bf16",
                                 gpu.name, gpu.key));
  // NVIDIA's tables give an FP8 run's MFU against the FP8 dense peak: the job's speed scaled by the
  // GPU file's FP8/BF16 ratio. A --gpu-file GPU is not the platform's: MFU is against its own peak.
  const double peak = fp8 ? gpu.fp8_tensor_flops : gpu.tensor_flops;
  if (!compute.gpu_file.empty() && reference_speed > 0) out.mfu_peak_scale = peak / reference_speed;
  else if (fp8) out.mfu_peak_scale = gpu.fp8_tensor_flops / gpu.tensor_flops;
  if (fp8 || !compute.gpu_file.empty()) out.mfu_peak_precision = fp8 ? "fp8" : "bf16";
  const model::KernelOptions options{.flash_attention = spec.flash_attention,
                                     .fused_grad_accumulation = compute.fused_grad_accumulation,
                                     .gradient_bytes = gradient_bytes,
                                     .optimizer_bytes_per_parameter = optimizer_bytes,
                                     .distributed_optimizer = distributed,
                                     .dp = par.gradient_group_size(),
                                     .precision = spec.precision,
                                     .fp8_recipe = gpu.fp8_recipe,
                                     .fp8_moe_padding = spec.fp8_moe_padding};
  std::vector<model::StageCompute> computes;
  for (const model::StageCost& c : model_stages) {
    computes.push_back(model::stage_compute(model::stage_kernels(model, par, c, options), gpu, c.moe.assignments));
  }
  nlohmann::json stages = nlohmann::json::array();
  for (std::size_t s = 0; s < computes.size(); ++s) stages.push_back(stage_json(static_cast<int>(s), computes[s], fp8));

  // A step of one GPU of each rank by op kind: m micro-batches of each of its stages, and the update.
  std::vector<std::map<std::string, double>> rank_kinds(layout.ranks);
  for (std::size_t s = 0; s < layout.model_stage.size(); ++s) {
    const model::StageCompute& c = computes[layout.model_stage[s]];
    out.work.push_back(model::kernel_work(c, reference_speed));
    out.optimizer_seconds[layout.rank[s]] += c.optimizer_seconds;
    for (std::size_t k = 0; k < c.kernels.size(); ++k)
      rank_kinds[layout.rank[s]][std::string(model::to_string(c.kernels[k].kind))] +=
          c.seconds[k] * (c.kernels[k].pass == model::Pass::Step ? 1 : microbatches);
  }
  nlohmann::json ranks = nlohmann::json::array();
  for (int r = 0; r < layout.ranks; ++r) ranks.push_back({{"rank", r}, {"step_seconds_by_kind", rank_kinds[r]}});

  nlohmann::json tiles = nlohmann::json::array();
  for (const model::GemmTile& tile : gpu.gemm_tiles) tiles.push_back({tile.m, tile.n});
  const model::ComputeConstants& k = gpu.constants;
  nlohmann::json constants = {{"gemm_efficiency", k.gemm_efficiency},
                              {"wave_seconds", k.wave_seconds},
                              {"memory_efficiency", k.memory_efficiency},
                              {"kernel_floor_seconds", k.kernel_floor_seconds}};
  if (k.fp8_gemm_efficiency > 0) constants["fp8_gemm_efficiency"] = k.fp8_gemm_efficiency;
  out.sms = gpu.sms;
  out.echo = {{"model", "kernels"}, {"gpu", gpu.key}, {"grad_accumulation", name_of<bool>(model::kGradAccumulations, compute.fused_grad_accumulation)}, {"hbm_bandwidth", gpu.hbm_bandwidth},
              {"optimizer_bytes", optimizer_bytes}};
  out.breakdown = {{"model", "kernels"},
                   {"gpu", gpu.key},
                   {"gpu_name", gpu.name},
                   {"sms", gpu.sms},
                   {"tensor_flops", gpu.tensor_flops},
                   {"hbm_bandwidth", gpu.hbm_bandwidth},
                   {"gemm_tiles", tiles},
                   {"calibration", gpu.calibration},
                   {"constants", constants},
                   {"kernel_columns", {"name", "pass", "part", "kind", "count", "m", "n", "k", "batch", "flops", "bytes",
                                       "recomputed", "seconds"}},
                   {"stages", stages},
                   {"ranks", ranks}};
  if (fp8) {
    out.breakdown["kernel_columns"].push_back("fp8");
    out.breakdown["precision"] = {{"compute", "fp8"},
                                  {"recipe", name_of<model::Fp8Recipe>(model::kFp8Recipes, gpu.fp8_recipe)},
                                  {"fp8_tensor_flops", gpu.fp8_tensor_flops},
                                  {"gradients_on_wire", "bf16"},
                                  {"moe_padding", name_of<bool>(model::kSwitches, spec.fp8_moe_padding)},
                                  {"source", "Transformer Engine fp8_autocast as Megatron-Core runs it: the linear "
                                             "layers' GEMMs in FP8, the attention core, LM head and router in bf16; "
                                             "the main gradients reduced in their own dtype (docs/compute-model.md)"}};
  }
  return out;
}

}  // namespace pipegrid::run
