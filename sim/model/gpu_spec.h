// The GPUs the compute model knows: datasheet numbers and fitted constants, read from the data files
// in platforms/gpus/ (compiled into the binary, so a run does not depend on the working directory).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/named.h"

namespace pipegrid::model {

/// What `make calibrate` fits per GPU (docs/compute-model.md): the same for every model and layout.
struct ComputeConstants {
  double gemm_efficiency = 1;       // η: a full tile's share of the tensor-core peak
  double wave_seconds = 0;          // τ: fixed cost of each wave of tiles (prologue, epilogue)
  double memory_efficiency = 1;     // share of the HBM bandwidth memory-bound kernels reach
  double kernel_floor_seconds = 0;  // the host issues at most one kernel per this long
  /// η of an FP8 GEMM's full tile, of the FP8 peak; 0: the file fits none, and gemm_efficiency holds.
  double fp8_gemm_efficiency = 0;
};

/// How Transformer Engine scales FP8 on the GPU: per-tensor delayed scaling (Hopper), or MXFP8's
/// per-32-element block scales in hardware (Blackwell).
enum class Fp8Recipe { None, Delayed, Mxfp8 };
inline constexpr Named<Fp8Recipe> kFp8Recipes[] = {
    {"none", Fp8Recipe::None}, {"delayed", Fp8Recipe::Delayed}, {"mxfp8", Fp8Recipe::Mxfp8}};

struct GemmTile {
  int m = 0;
  int n = 0;
};

struct GpuSpec {
  std::string key;                      // the data file's name, e.g. "a100-80gb"
  std::string name;                     // "A100 80GB SXM4"
  std::vector<std::string> gpu_models;  // platform gpu_model values that mean this GPU
  int sms = 0;
  double tensor_flops = 0;      // dense 16-bit tensor-core peak, FLOP/s
  double fp8_tensor_flops = 0;  // dense FP8 peak, FLOP/s; 0: no FP8 tensor cores
  Fp8Recipe fp8_recipe = Fp8Recipe::None;
  double hbm_bandwidth = 0;     // bytes/s
  double hbm_capacity = 0;      // bytes
  double nvlink_bandwidth = 0;  // one GPU's NVLink, bytes/s each way
  std::vector<GemmTile> gemm_tiles;
  ComputeConstants constants;
  std::string calibration;  // the key whose .calibrated.toml gave the constants
};

/// Parses one GPU file; `where` prefixes error messages. Its constants are its own `[constants]`
/// table when it has one, else the shipped `<calibration>.calibrated.toml`. Throws InputError naming
/// the file and the field for a missing, non-positive or ill-typed value.
GpuSpec parse_gpu_spec(std::string_view key, std::string_view gpu_toml, std::string_view where);


/// Every shipped GPU, in file-name order.
const std::vector<GpuSpec>& gpu_specs();

/// The shipped GPU whose file is `key` ("h100-sxm"); throws InputError naming the known keys.
const GpuSpec& shipped_gpu(std::string_view key);

/// The GPU a platform's gpu_model names (case-insensitive). Throws InputError
/// `gpu_model "X": no GPU file describes it; known: A100, …` otherwise.
const GpuSpec& gpu_spec_for_model(std::string_view gpu_model);

}  // namespace pipegrid::model
