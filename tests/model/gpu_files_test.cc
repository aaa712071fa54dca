// The shipped GPU files against their datasheets (each figure typed here from NVIDIA's published
// sheets, not read from the files), the presets that take their figures from them, and the parser's
// rules for a file of one's own.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/input_error.h"
#include "sim/model/gpu_spec.h"
#include "sim/platform/presets.h"

namespace pipegrid::model {
namespace {

constexpr double k80GiB = 80.0 * (1 << 30);

struct Sheet {
  const char* key;
  int sms;
  double bf16, fp8, hbm_bandwidth, hbm_capacity, nvlink_each_way;
};

// Dense peaks: the datasheets quote Hopper's and Blackwell's with 2:4 sparsity, twice these.
// A100: 312 TFLOP/s, 2,039 GB/s, NVLink 600 GB/s both ways. H100 SXM5: 989 / 1,979 TFLOP/s, 3.35 TB/s,
// 900 GB/s. H200: as H100 with 141 GB at 4.8 TB/s. H800: H100's compute, NVLink as DeepSeek-V3
// measured it (160 GB/s). B200 (DGX B200: 72 PFLOP/s FP8 sparse, 1,440 GB, 64 TB/s for 8 GPUs; NVLink 5
// 1.8 TB/s both ways; 148 SMs).
const Sheet kSheets[] = {
    {"a100-80gb", 108, 312e12, 0, 2.039e12, k80GiB, 300e9},
    {"h100-sxm", 132, 989e12, 1979e12, 3.35e12, k80GiB, 450e9},
    {"h200", 132, 989e12, 1979e12, 4.8e12, 141e9, 450e9},
    {"h800", 132, 989e12, 1979e12, 3.35e12, k80GiB, 160e9},
    {"b200", 148, 2250e12, 4500e12, 8e12, 180e9, 900e9},
};

TEST(GpuFiles, EachShippedGpuIsItsDatasheet) {
  for (const Sheet& s : kSheets) {
    SCOPED_TRACE(s.key);
    const GpuSpec& g = shipped_gpu(s.key);
    EXPECT_EQ(g.sms, s.sms);
    EXPECT_EQ(g.tensor_flops, s.bf16);
    EXPECT_EQ(g.fp8_tensor_flops, s.fp8);
    EXPECT_EQ(g.hbm_bandwidth, s.hbm_bandwidth);
    EXPECT_EQ(g.hbm_capacity, s.hbm_capacity);
    EXPECT_EQ(g.nvlink_bandwidth, s.nvlink_each_way);
    // Hopper scales FP8 per tensor with an amax history, Blackwell per 32-element block (MXFP8).
    const Fp8Recipe recipe = s.fp8 == 0 ? Fp8Recipe::None : s.sms == 148 ? Fp8Recipe::Mxfp8 : Fp8Recipe::Delayed;
    EXPECT_EQ(g.fp8_recipe, recipe);
    EXPECT_GT(g.constants.gemm_efficiency, 0);
    EXPECT_LE(g.constants.gemm_efficiency, 1);
  }
  EXPECT_EQ(gpu_specs().size(), std::size(kSheets));
}

TEST(GpuFiles, ThePresetsTakeTheGpuFromItsFile) {
  for (const auto& [preset, file] : {std::pair{"dgx-a100", "a100-80gb"}, {"dgx-h100", "h100-sxm"}, {"dgx-h200", "h200"},
                                     {"dgx-b200", "b200"}, {"h800", "h800"}}) {
    SCOPED_TRACE(preset);
    const platform::Preset& p = platform::find_preset(preset);
    const std::string_view key = file;  // clang 14 captures no structured binding
    const Sheet& s = *std::find_if(std::begin(kSheets), std::end(kSheets),
                                   [key](const Sheet& sheet) { return std::string_view(sheet.key) == key; });
    EXPECT_EQ(p.gpu_speed, s.bf16);
    EXPECT_EQ(p.gpu_memory, static_cast<std::int64_t>(s.hbm_capacity));
    EXPECT_EQ(p.nvlink_bandwidth, s.nvlink_each_way);
    // The GPU host's gpu_model names the same file back.
    EXPECT_EQ(gpu_spec_for_model(p.gpu_model).key, key);
    EXPECT_EQ(p.ib_bandwidth, key == std::string_view("a100-80gb") ? 25e9 : 50e9);  // HDR, else NDR 400 Gb/s
  }
}

TEST(GpuFiles, AnUnknownModelNamesTheKnownOnes) {
  EXPECT_EQ(gpu_spec_for_model("h800").key, "h800");  // case-insensitive
  try {
    gpu_spec_for_model("V100");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "gpu_model \"V100\": no GPU file describes it (known: A100, B200, H100, H200, H800); name one of those in "
              "the platform or run with --compute-efficiency");
  }
}

TEST(GpuFiles, AFileWithItsOwnConstantsAndBadFiles) {
  const std::string base = "name = \"X\"\ngpu_models = [\"X\"]\nsms = 10\ntensor_flops = 1e12\nhbm_bandwidth = 1e11\n"
                           "gemm_tiles = [[64, 64]]\n";
  const GpuSpec g = parse_gpu_spec("x", base + "[constants]\ngemm_efficiency = 0.5\nwave_seconds = 0\n"
                                    "memory_efficiency = 0.25\nkernel_floor_seconds = 1e-6\n", "x.toml");
  EXPECT_EQ(g.constants.gemm_efficiency, 0.5);
  EXPECT_EQ(g.constants.memory_efficiency, 0.25);
  EXPECT_EQ(g.constants.fp8_gemm_efficiency, 0);  // none fitted: an FP8 GEMM would take η
  EXPECT_EQ(g.fp8_tensor_flops, 0);                // optional in a file of one's own: no FP8
  const auto error_of = [](const std::string& text) {
    try {
      parse_gpu_spec("x", text, "x.toml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("gpu_models = [\"X\"]\nsms = 0\n"), "x.toml: sms = 0: must be positive");
  EXPECT_EQ(error_of(base + "[constants]\ngemm_efficiency = 1.5\nwave_seconds = 0\nmemory_efficiency = 1\n"
                            "kernel_floor_seconds = 0\n"),
            "x.toml: [constants]: an efficiency above 1");
  EXPECT_EQ(error_of(base + "calibration = \"nope\"\n"), "platforms/gpus/nope.calibrated.toml: no such shipped file");
  EXPECT_EQ(error_of(base + "fp8_tensor_flops = 2e12\n"),
            "x.toml: fp8_recipe and fp8_tensor_flops: give both (an FP8 GPU) or neither");
  EXPECT_EQ(error_of(base + "fp8_tensor_flops = 2e12\nfp8_recipe = \"nvfp4\"\n"),
            "x.toml: fp8_recipe = \"nvfp4\": must be delayed, mxfp8 or none");
  EXPECT_EQ(error_of(base + "hbm_capacity = -1\n"), "x.toml: hbm_capacity = -1: must be finite and >= 0");
}

}  // namespace
}  // namespace pipegrid::model
