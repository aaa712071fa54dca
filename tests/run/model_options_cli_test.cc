// The model options as a user gives them: a Hugging Face config.json (--hf-config, TOML
// model.hf_config) and the description's fields as flags over a preset or a config, all echoed in
// summary.json; every refusal one line and exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "command_runner.h"

namespace pipegrid {
namespace {

using test_support::fresh_dir;
using test_support::run_pipegrid;

const std::string kModels = PIPEGRID_SOURCE_DIR "/experiments/models";
const std::string kOneNode = " --platform " PIPEGRID_SOURCE_DIR "/platforms/dgx-a100-1node.xml";
const std::string kJob = kOneNode + " --schedule 1f1b --pp 2 --microbatches 2 --format json";

nlohmann::json summary_of(const std::string& args) {
  const auto r = run_pipegrid("simulate" + kJob + " " + args);
  EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

TEST(ModelOptionsCli, APresetIsItsShippedConfigAtItsTrainingSequence) {
  // --model llama3.1-8b is experiments/models/llama3.1-8b/config.json at sequence 8192: the same run,
  // byte for byte, but for the config's path in the echo.
  nlohmann::json preset = summary_of("--model llama3.1-8b --layers 4");
  nlohmann::json config = summary_of("--hf-config " + kModels + "/llama3.1-8b/config.json --seq 8192 --layers 4");
  ASSERT_FALSE(preset.is_null());
  ASSERT_FALSE(config.is_null());
  EXPECT_EQ(config["inputs"]["model"]["hf_config"], kModels + "/llama3.1-8b/config.json");
  config["inputs"]["model"].erase("hf_config");
  EXPECT_EQ(preset.dump(), config.dump());
  const auto& model = preset["inputs"]["model"];
  EXPECT_EQ(model["name"], "llama3.1-8b");
  EXPECT_EQ(model["hidden"], 4096);
  EXPECT_EQ(model["heads"], 32);
  EXPECT_EQ(model["kv_heads"], 8);
  EXPECT_EQ(model["head_dim"], 128);
  EXPECT_EQ(model["ffn_hidden"], 14336);
  EXPECT_EQ(model["vocab"], 128256);
  EXPECT_EQ(model["seq"], 8192);
  EXPECT_EQ(model["mlp"], "swiglu");
  EXPECT_EQ(model["norm"], "rmsnorm");
  EXPECT_EQ(model["positions"], "rope");
  EXPECT_EQ(model["linear_bias"], "off");
  EXPECT_EQ(model["qkv_bias"], "off");
  EXPECT_EQ(model["dropout"], "off");
  EXPECT_EQ(model["tied_embeddings"], "off");
  EXPECT_FALSE(model.contains("mla"));
}

TEST(ModelOptionsCli, EveryFieldsFlagOverridesTheConfigAndIsEchoed) {
  const nlohmann::json s = summary_of("--hf-config " + kModels +
                                      "/llama3.1-8b/config.json --seq 1024 --layers 2 --kv-heads 4 --head-dim 64 "
                                      "--mlp gelu --norm layernorm --positions learned --linear-bias on --qkv-bias on "
                                      "--dropout on --tied-embeddings on");
  ASSERT_FALSE(s.is_null());
  const auto& model = s["inputs"]["model"];
  EXPECT_EQ(model["layers"], 2);
  EXPECT_EQ(model["seq"], 1024);
  EXPECT_EQ(model["kv_heads"], 4);
  EXPECT_EQ(model["head_dim"], 64);
  EXPECT_EQ(model["mlp"], "gelu");
  EXPECT_EQ(model["norm"], "layernorm");
  EXPECT_EQ(model["positions"], "learned");
  EXPECT_EQ(model["linear_bias"], "on");
  EXPECT_EQ(model["qkv_bias"], "on");
  EXPECT_EQ(model["dropout"], "on");
  EXPECT_EQ(model["tied_embeddings"], "on");
}

TEST(ModelOptionsCli, LatentAttentionFromFlagsIsEchoed) {
  const nlohmann::json s = summary_of(
      "--layers 2 --hidden 1024 --heads 16 --seq 1024 --vocab 50304 "
      "--q-lora-rank 512 --kv-lora-rank 256 --qk-rope-head-dim 32 "
      "--qk-nope-head-dim 64 --v-head-dim 64");
  ASSERT_FALSE(s.is_null());
  EXPECT_EQ(s["inputs"]["model"]["mla"], nlohmann::json({{"q_lora_rank", 512},
                                                         {"kv_lora_rank", 256},
                                                         {"qk_rope_head_dim", 32},
                                                         {"qk_nope_head_dim", 64},
                                                         {"v_head_dim", 64}}));
}

TEST(ModelOptionsCli, Gpt2sSequenceIsItsPositionTable) {
  // GPT-2's learned positions make n_positions its sequence: no --seq needed.
  const std::string dir = fresh_dir("hf_config_gpt2") + "/gpt2";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/config.json") << R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 768, "n_layer": 12,
      "n_head": 12, "n_positions": 1024, "vocab_size": 50257})";
  const nlohmann::json s = summary_of("--hf-config " + dir + "/config.json");
  ASSERT_FALSE(s.is_null());
  const auto& model = s["inputs"]["model"];
  EXPECT_EQ(model["seq"], 1024);
  EXPECT_EQ(model["positions"], "learned");
  EXPECT_EQ(model["mlp"], "gelu");
  EXPECT_EQ(model["tied_embeddings"], "on");
  EXPECT_EQ(model["name"], "gpt2");  // the config's folder
}

TEST(ModelOptionsCli, AnExperimentsConfigIsFoundBesideIt) {
  // model.hf_config is a path from the experiment file's folder, as every path of an experiment is.
  const std::string dir = fresh_dir("hf_config_experiment");
  std::filesystem::create_directories(dir + "/models/llama3.1-8b");
  std::filesystem::copy_file(kModels + "/llama3.1-8b/config.json", dir + "/models/llama3.1-8b/config.json");
  std::ofstream(dir + "/experiment.toml") << "[platform]\nfile = \"" PIPEGRID_SOURCE_DIR
                                             "/platforms/dgx-a100-1node.xml\"\n"
                                             "[parallel]\npp = 2\nmicrobatches = 2\n"
                                             "[model]\nhf_config = \"models/llama3.1-8b/config.json\"\n"
                                             "seq = 2048\nlayers = 2\nkv_heads = 2\ntied_embeddings = \"on\"\n"
                                             "[sim]\nschedule = \"1f1b\"\n"
                                             "[output]\nformat = \"json\"\n";
  const auto r = run_pipegrid("run " + dir + "/experiment.toml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto model = nlohmann::json::parse(r.out)["inputs"]["model"];
  EXPECT_EQ(model["name"], "llama3.1-8b");
  EXPECT_EQ(model["seq"], 2048);
  EXPECT_EQ(model["kv_heads"], 2);
  EXPECT_EQ(model["tied_embeddings"], "on");
  EXPECT_EQ(model["hidden"], 4096);
}

struct BadModel {
  std::string name, args, message;
};
void PrintTo(const BadModel& b, std::ostream* out) { *out << "pipegrid simulate " << b.args; }

class ModelOptionsBadInput : public ::testing::TestWithParam<BadModel> {};

TEST_P(ModelOptionsBadInput, OneLineAndExitCode2) {
  const auto r = run_pipegrid("simulate" + kJob + " " + GetParam().args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pipegrid: error: " + GetParam().message + "\n");
}

const std::string kLlama = kModels + "/llama3.1-8b/config.json";
const std::string kBad = PIPEGRID_TEST_DATA "/hf_configs";

INSTANTIATE_TEST_SUITE_P(
    Messages, ModelOptionsBadInput,
    ::testing::Values(
        BadModel{"ModelAndConfig", "--model gpt-175b --hf-config " + kLlama + " --seq 1024",
                 "--model and --hf-config: give one (a preset is one of the shipped config.json files)"},
        BadModel{"ConfigWithoutSeq", "--hf-config " + kLlama,
                 "--seq: required with --hf-config " + kLlama +
                     ": a config.json gives the longest context (max_position_embeddings), not the sequence a run "
                     "trains with"},
        BadModel{"MissingConfig", "--hf-config nowhere.json --seq 1024",
                 "--hf-config nowhere.json: not a regular file (or missing)"},
        BadModel{"ADevice", "--hf-config /dev/zero --seq 1024",
                 "--hf-config /dev/zero: not a regular file (or missing)"},
        BadModel{"UnknownArchitecture", "--hf-config " + kBad + "/falcon.json --seq 1024",
                 "--hf-config " + kBad +
                     "/falcon.json: architectures: FalconForCausalLM is not one of LlamaForCausalLM, "
                     "MistralForCausalLM, MixtralForCausalLM, Qwen2ForCausalLM, Qwen2MoeForCausalLM, Qwen3ForCausalLM, "
                     "Qwen3MoeForCausalLM, DeepseekV3ForCausalLM, NemotronForCausalLM, GPT2LMHeadModel"},
        BadModel{"MissingHiddenSize", "--hf-config " + kBad + "/no-hidden-size.json --seq 1024",
                 "--hf-config " + kBad + "/no-hidden-size.json: hidden_size: missing"},
        BadModel{"KvHeadsNotDividingHeads", "--model llama3.1-8b --kv-heads 5", "--kv-heads 5: must divide --heads 32"},
        BadModel{"UnknownMlp", "--model llama3.1-8b --mlp geglu",
                 "--mlp geglu: must be one of gelu, swiglu, squared-relu"},
        BadModel{"UnknownNorm", "--model llama3.1-8b --norm batchnorm",
                 "--norm batchnorm: must be one of layernorm, rmsnorm"},
        BadModel{"UnknownPositions", "--model llama3.1-8b --positions alibi",
                 "--positions alibi: must be one of learned, rope"},
        BadModel{"SwitchNotOnOrOff", "--model llama3.1-8b --tied-embeddings yes",
                 "--tied-embeddings yes: must be one of on, off"},
        BadModel{
            "FieldFlagWithTimes", "--kv-heads 8 --time-f 1",
            "--time-f/--time-b/--time-w/--time-fb and --model/--layers/…: give explicit times or a model, not both"},
        BadModel{"FieldFlagWithoutAModel", "--kv-heads 8",
                 "--layers: needed to describe a model without --model or --hf-config"},
        BadModel{"HeadDimWithLatentAttention", "--model deepseek-v3 --head-dim 64",
                 "--head-dim 64: multi-head latent attention sets its head widths with --qk-nope-head-dim, "
                 "--qk-rope-head-dim and --v-head-dim"},
        BadModel{"LatentAttentionWithoutItsLatent",
                 "--layers 2 --hidden 1024 --heads 16 --seq 1024 --vocab 50304 --qk-nope-head-dim 64 --v-head-dim 64",
                 "--kv-lora-rank 0: must be positive"},
        BadModel{"LatentAttentionOnAGroupedQueryPreset", "--model llama3.1-8b --kv-lora-rank 512",
                 "--kv-lora-rank 512: llama3.1-8b has grouped-query attention (8 key-value heads for 32 query heads); "
                 "multi-head latent attention has one per query head: add --kv-heads 32"},
        BadModel{"ANegativeRank", "--model llama3.1-8b --q-lora-rank -1", "--q-lora-rank -1: must not be negative"},
        BadModel{"TooManyParameters", "--layers 100000 --hidden 1048576 --heads 16 --seq 1024 --vocab 50304",
                 "--layers 100000 --hidden 1048576: a model of 1.32e+18 parameters; pipegrid counts up to 1e+15"}),
    [](const ::testing::TestParamInfo<BadModel>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace pipegrid
