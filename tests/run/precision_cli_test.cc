// --precision as a user gives it: FP8 on the GPUs that have it, its MFU against the FP8 peak as
// NVIDIA's tables give it, what summary.json says of it; refused in one line where it cannot run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "command_runner.h"

namespace pipegrid {
namespace {

using test_support::run_pipegrid;

const std::string kJob = "simulate --model llama3.1-8b --layers 4 --seq 4096 --tp 2 --pp 2 --dp 2 --microbatches 4 "
                         "--schedule 1f1b --sequence-parallel --flash-attention --trace off --format json";

nlohmann::json summary_of(const std::string& args) {
  const auto r = run_pipegrid(kJob + " " + args);
  EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

TEST(PrecisionCli, Fp8IsFasterAndItsMfuIsAgainstTheFp8Peak) {
  const nlohmann::json bf16 = summary_of("--preset dgx-h100 --nodes 1");
  const nlohmann::json fp8 = summary_of("--preset dgx-h100 --nodes 1 --precision fp8");
  ASSERT_FALSE(bf16.is_null());
  ASSERT_FALSE(fp8.is_null());
  const double t_bf16 = bf16["makespan"], t_fp8 = fp8["makespan"];
  EXPECT_LT(t_fp8, t_bf16);
  EXPECT_GT(t_fp8, t_bf16 / 2);  // the attention, norms and casts stay: not the peaks' ratio
  // The same model FLOPs over each run's step: MFU × peak × step is that count for both, so the
  // FP8 run's MFU is against 1 979 TFLOP/s (H100 SXM5 dense FP8), the bf16 run's against 989.
  const double mfu_bf16 = bf16["mfu"], mfu_fp8 = fp8["mfu"];
  EXPECT_NEAR(mfu_fp8 * 1979e12 * t_fp8, mfu_bf16 * 989e12 * t_bf16, 1e-9 * mfu_bf16 * 989e12 * t_bf16);
  EXPECT_EQ(fp8["mfu_peak_flops"]["flops"], 1979e12);
  EXPECT_EQ(fp8["mfu_peak_flops"]["precision"], "fp8");
  EXPECT_FALSE(bf16.contains("mfu_peak_flops"));
  // What ran in FP8, and that gradients still travel in bf16.
  const nlohmann::json& breakdown = fp8["compute_breakdown"];
  EXPECT_EQ(breakdown["precision"]["recipe"], "delayed");
  EXPECT_EQ(breakdown["precision"]["gradients_on_wire"], "bf16");
  EXPECT_EQ(breakdown["kernel_columns"].back(), "fp8");
  int fp8_rows = 0;
  for (const nlohmann::json& k : breakdown["stages"][0]["kernels"])
    if (k.back() == true) {
      ++fp8_rows;
      EXPECT_EQ(k[3], "gemm") << k[0];
    }
  EXPECT_EQ(fp8_rows, 12);  // QKV, projection, gate+up and down, each F, dgrad and wgrad
  // The same gradient bytes: the data-parallel traffic is the bf16 run's.
  EXPECT_EQ(fp8["memory"]["ranks"][0]["gradients"], bf16["memory"]["ranks"][0]["gradients"]);
  EXPECT_GT(fp8["memory"]["ranks"][0]["fp8_weights"].get<double>(), 0);
  EXPECT_LT(fp8["memory"]["ranks"][0]["activations"].get<double>(), bf16["memory"]["ranks"][0]["activations"].get<double>());
}

TEST(PrecisionCli, BlackwellRunsMxfp8) {
  const nlohmann::json b200 = summary_of("--preset dgx-b200 --nodes 1 --precision fp8");
  ASSERT_FALSE(b200.is_null());
  EXPECT_EQ(b200["compute_breakdown"]["gpu"], "b200");
  EXPECT_EQ(b200["compute_breakdown"]["precision"]["recipe"], "mxfp8");
  EXPECT_EQ(b200["mfu_peak_flops"]["flops"], 4500e12);
}

TEST(PrecisionCli, Fp8WhereItCannotRunIsOneLine) {
  auto r = run_pipegrid(kJob + " --preset dgx-a100 --nodes 1 --precision fp8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: --precision fp8: the A100 80GB SXM4 (a100-80gb) has no FP8 tensor cores (its GPU "
                   "file gives no fp8_tensor_flops); run it in bf16\n");
  r = run_pipegrid(kJob + " --preset dgx-h100 --nodes 1 --precision fp8 --compute-efficiency 0.5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--precision fp8 with --compute-efficiency"), std::string::npos) << r.err;
  r = run_pipegrid(kJob + " --preset dgx-h100 --nodes 1 --precision fp4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--precision"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace pipegrid
