// Experiment files: every option of simulate and schedule has a key, a key reads the same value as its
// flag, and mistakes are named by key and line.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "error_of.h"
#include "sim/cli/command_options.h"
#include "sim/input/experiment_file.h"
#include "sim/input/option_schema.h"
#include "sim/input/toml_screen.h"

namespace pipegrid::input {
namespace {

toml::table parse(const std::string& text) { return toml::parse(std::string_view(text), std::string_view("exp.toml")); }

std::string error_of(const std::string& text) {
  return test_support::error_of([&] { read_experiment(parse(text), "exp.toml"); });
}

// The options given on a command line, read by the same command-line app the binary builds.
OptionValues from_command_line(Command command, std::vector<std::string> args) {
  CLI::App app;
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  const cli::CommandOptions options(app, command);
  std::vector<const char*> argv{"pipegrid"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  return options.values();
}

// A value of the option that differs from its default where one exists, as command-line text and as
// a TOML value: the first choice that is not the default, a number within the bounds, "true".
std::pair<std::string, std::string> sample(const OptionSpec& o) {
  switch (o.type) {
    case ValueType::Integer: {  // 3, or the lower bound where 3 is below it (--width: 20)
      const std::string n = std::to_string(o.bounds.min > 3 ? static_cast<int>(o.bounds.min) : 3);
      return {n, n};
    }
    case ValueType::Number: {  // 0.5, or the lower bound where 0.5 is below it (--oversubscription: 1)
      const std::string n = o.bounds.min > 0.5 ? fmt::format("{}", o.bounds.min) : "0.5";
      return {n, n};
    }
    case ValueType::Flag: return {"", "true"};
    case ValueType::Choice: {
      const std::string& c = o.choices.back() == o.default_text ? o.choices.front() : o.choices.back();
      return {c, "\"" + c + "\""};
    }
    default: {
      const std::string text = o.flag == "stage-cost-scale"                    ? "1=1.5"
                               : o.flag == "routing"                           ? "zipf:1.5"
                               : o.flag == "layer-split"                       ? "balanced"
                               : o.flag == "placement"                         ? "dp-tp-cp-ep-pp"
                               : o.flag == "nvlink-bw" || o.flag == "ib-bw" ? "12.5GBps"
                                                                               : "x.xml";
      return {text, "\"" + text + "\""};
    }
  }
}

TEST(ExperimentFile, EveryKeyReadsWhatItsFlagReads) {
  // Two readers of one schema, the command line's text and the TOML file's typed values: for every
  // option of simulate and schedule, the same value given both ways is the same value.
  for (Command command : kExperimentCommands)
    for (const OptionSpec* o : options_of(command)) {
      ASSERT_TRUE(o->in_experiment_files()) << command_name(command) << " " << o->flag_name() << " has no key";
      const auto [text, toml_text] = sample(*o);
      std::vector<std::string> args{o->flag_name()};
      if (o->type != ValueType::Flag) args.push_back(text);
      const OptionValues flags = from_command_line(command, args);
      const std::string line = o->toml_key() + " = " + toml_text + "\n";
      std::string file = "[" + std::string(o->section) + "]\n" + line;
      if (command == Command::Schedule)
        file = o->section == "sim" ? "[sim]\ncommand = \"schedule\"\n" + line : "[sim]\ncommand = \"schedule\"\n" + file;
      const Experiment experiment = read_experiment(parse(file), "exp.toml");
      ASSERT_EQ(experiment.command(), command);
      ASSERT_EQ(flags.given().size(), 1u) << o->flag_name();
      ASSERT_EQ(experiment.values.given().size(), 1u) << o->flag_name();
      EXPECT_EQ(value_text(*experiment.values.given().front().second), value_text(*flags.given().front().second))
          << command_name(command) << " " << o->flag_name();
    }
}

TEST(ExperimentFile, AnExperimentWrittenBackReadsTheSame) {
  const Experiment read = read_experiment(parse(R"(
[platform]
file = "platforms/dgx-a100-2node.xml"
[parallel]
pp = 4
[model]
name = "gpt-175b"
compute_efficiency = 1
scatter_gather = true
[sim]
schedule = "zb-h1"
)"),
                                          "exp.toml");
  const Experiment again = read_experiment(experiment_table(read), "again.toml");
  EXPECT_EQ(again.values.canonical_text(), read.values.canonical_text());
  // The integer 1 is the number 1 for compute_efficiency, and unset options read their defaults.
  EXPECT_EQ(read.values.number("compute-efficiency"), 1.0);
  EXPECT_EQ(read.values.integer("tp"), 1);
  EXPECT_TRUE(read.values.flag("scatter-gather"));
}

TEST(ExperimentFile, ExperimentTextReadsBackTheSameStrings) {
  // What the sweep runner writes as a configuration's experiment.toml (tests/fuzz/corpus/experiment_toml/
  // regression-written-*): a line break then ''' inside, or a leading line break, survive.
  for (const std::string file : {"a\nb'''", "\nx", "tab\there \"quoted\" back\\slash", "é"}) {
    Experiment experiment;
    experiment.values.set(*find_option(Command::Simulate, "platform"), file);
    const std::string text = experiment_text(experiment);
    const Experiment again = read_experiment(parse_toml(text, "written.toml"), "written.toml");
    EXPECT_EQ(again.values.text("platform"), file) << text;
  }
}

TEST(ExperimentFile, MistakesAreNamedByKeyAndLine) {
  EXPECT_EQ(error_of("[parallel]\npp = 4\ntpx = 2\n"), "exp.toml:3:7: [parallel] tpx: unknown key");
  EXPECT_EQ(error_of("[parallel]\npp = \"four\"\n"), "exp.toml:2:6: [parallel] pp: expected an integer, got a string");
  EXPECT_EQ(error_of("[parallel]\npp = 4.0\n"), "exp.toml:2:6: [parallel] pp: expected an integer, got a number");
  EXPECT_EQ(error_of("[parallel]\npp = 0\n"), "exp.toml:2:6: [parallel] pp: must be at least 1");
  EXPECT_EQ(error_of("[model]\ncompute_efficiency = \"high\"\n"),
            "exp.toml:2:22: [model] compute_efficiency: expected a number, got a string");
  EXPECT_EQ(error_of("[model]\ncompute_efficiency = nan\n"), "exp.toml:2:22: [model] compute_efficiency: must be a finite number");
  EXPECT_EQ(error_of("[model]\ncompute_efficiency = 1.5\n"), "exp.toml:2:22: [model] compute_efficiency: must be in (0, 1]");
  EXPECT_EQ(error_of("[sim]\np2p_bytes = inf\n"), "exp.toml:2:13: [sim] p2p_bytes: must be a finite number");
  EXPECT_EQ(error_of("[sim]\np2p = \"eager\"\n"), "exp.toml:2:7: [sim] p2p: must be one of async, rendezvous, blocking");
  EXPECT_EQ(error_of("[model]\nscatter_gather = 1\n"), "exp.toml:2:18: [model] scatter_gather: expected a boolean, got an integer");
  EXPECT_EQ(error_of("[modle]\nlayers = 2\n"),
            "exp.toml:1:1: [modle]: unknown section; an experiment has [platform], [parallel], [model], [sim] and "
            "[output]");
  EXPECT_EQ(error_of("[\"x\"]\n"),
            "exp.toml:1:1: [x]: unknown section; an experiment has [platform], [parallel], [model], [sim] and [output]");
  // schedule takes a model and a platform (its contention-free estimate), not the executor's options.
  EXPECT_EQ(error_of("[sim]\ncommand = \"schedule\"\n[output]\ntrace = \"off\"\n"),
            "exp.toml:4:9: [output] trace: `pipegrid schedule` has no --trace");
  EXPECT_EQ(error_of("[sim]\ncommand = \"train\"\n"), "exp.toml:2:11: [sim] command: expected simulate or schedule, got train");
}

TEST(ExperimentFile, NonAsciiOnlyWhereToml3_3ReadsItSafely) {
  // Where toml++ 3.3.0 would reach undefined behaviour (tests/fuzz/corpus/*/regression-toml-*), one line;
  // in comments and strings, read as TOML reads it.
  const auto parse_error = [](const std::string& text) {
    return test_support::error_of([&] { parse_toml(text, "exp.toml"); });
  };
  EXPECT_EQ(parse_error("\xcf\xbb"),
            "exp.toml:1:1: a non-ASCII character outside a string or a comment (TOML allows them only there)");
  EXPECT_EQ(parse_error("[sim]\nschedule = 1f1b\xc3\x97\n"),
            "exp.toml:2:16: a non-ASCII character outside a string or a comment (TOML allows them only there)");
  EXPECT_EQ(parse_error("[output]\nout = \"\"\"\\\n  \xc2\xa7\"\"\"\n"),
            "exp.toml:3:3: a non-ASCII character after a backslash in a multi-line string: write it as \\uXXXX");
  EXPECT_EQ(parse_error("[parallel]\npp = 4 = 4\n"),
            "exp.toml:2:8: Error while parsing key-value pair: expected a comment or whitespace, saw '='");
  EXPECT_EQ(parse_error("\"\"\"\\é\"\"\" = 1\n"),
            "exp.toml:1:5: a non-ASCII character after a backslash in a multi-line string: write it as \\uXXXX");
  EXPECT_EQ(parse_error("[parallel]\npp = 4\"é\"\n"),
            "exp.toml:2:8: a non-ASCII character outside a string or a comment (TOML allows them only there)");
  // A malformed date-time makes toml++ read on past the line's end (found by a 600 s fuzzing run):
  // dates and times are refused before it reads them; no option takes one.
  EXPECT_EQ(parse_error("d=4562-05-27 0\n\"\xc3\xa9"), "exp.toml:1:3: a date or time, which no pipegrid option takes");
  EXPECT_EQ(parse_error("[sim]\nt = 07:32:00\n"), "exp.toml:2:5: a date or time, which no pipegrid option takes");
  // toml++ takes any value whose first ten characters (underscores aside) have '-' fifth and eighth
  // for a date, letters and all, and reads past the line as above (found by a 60 s fuzzing run; the
  // issue's `d=45-2-05-27 0."é` too).
  EXPECT_EQ(parse_error("d=45-2-05-27 0.\"\xc3\xa9"), "exp.toml:1:3: a date or time, which no pipegrid option takes");
  EXPECT_EQ(parse_error("d=456N-05-27 0\n\"\xc3\xa9"), "exp.toml:1:3: a date or time, which no pipegrid option takes");
  EXPECT_EQ(parse_error("d=4_5_6_2-05-27 0\n"), "exp.toml:1:3: a date or time, which no pipegrid option takes");
  EXPECT_EQ(parse_error("[parallel]\npp = 2024\n"), "");  // a number of four digits is no date
  const toml::table read = parse_toml("# α-β, 128 × 4\n[output]\nout = \"\"\"α\\\n  \\u00a7\"\"\" # ×\n", "exp.toml");
  EXPECT_EQ(read["output"]["out"].value_or(std::string()), "α§");
  EXPECT_EQ(parse_toml("\xEF\xBB\xBF[sim] # a byte order mark first\n", "exp.toml").size(), 1u);
  const toml::table keys = parse_toml(
      "a.\"é\".b = 'é'\n[\"é\".x]\nk = [ \"é\", # é\n  'é', \"\"\"é\"\"\"\"\" ]\nt = { \"é\" = 1, b.'é' = 2 }\n[[\"α\"]]\n",
      "exp.toml");
  EXPECT_EQ(keys["a"]["é"]["b"].value_or(std::string()), "é");
  EXPECT_EQ(keys["é"]["x"]["k"][2].value_or(std::string()), "é\"\"");
  EXPECT_EQ(keys["é"]["x"]["t"]["b"]["é"].value_or(0), 2);
}

TEST(ExperimentFile, NestingDeeperThanTomlScreenAllowsIsRefused) {
  // toml++ 3.3 builds and frees its tree recursively: a key of tens of thousands of dotted parts
  // overflowed the stack. Each dotted part, [table] header part, array and inline table is a level.
  const auto parse_error = [](const std::string& text) {
    return test_support::error_of([&] { parse_toml(text, "exp.toml"); });
  };
  const auto parts = [](int n) {
    std::string key = "a";
    for (int k = 1; k < n; ++k) key += ".a";
    return key;
  };
  const std::string too_deep = fmt::format(
      "nested deeper than {} levels (each part of a dotted key or [table] header, each array and inline table is one)",
      kMaxTomlDepth);
  ASSERT_EQ(kMaxTomlDepth, 64);
  EXPECT_EQ(parse_error(parts(64) + " = 1\n"), "");
  EXPECT_EQ(parse_error(parts(65) + " = 1\n"), "exp.toml:1:129: " + too_deep);  // the 65th part, 1 + 2 x 64
  EXPECT_EQ(parse_error("[" + parts(64) + "]\n"), "");
  EXPECT_EQ(parse_error("[" + parts(65) + "]\n"), "exp.toml:1:130: " + too_deep);
  EXPECT_EQ(parse_error("[" + parts(65000) + "]\n"), "exp.toml:1:130: " + too_deep);
  // Under a header, a key adds its parts to the header's: 32 + 33.
  EXPECT_EQ(parse_error("[" + parts(32) + "]\n" + parts(32) + " = 1\n"), "");
  EXPECT_EQ(parse_error("[" + parts(32) + "]\n" + parts(33) + " = 1\n"), "exp.toml:2:65: " + too_deep);
  // Quoted parts count as bare ones do.
  EXPECT_EQ(parse_error(parts(64) + ".\"a\" = 1\n"), "exp.toml:1:129: " + too_deep);
  // Arrays and inline tables nest below their key: `a` is level 1, its array too, each inner one more.
  EXPECT_EQ(parse_error("a = " + std::string(64, '[') + std::string(64, ']') + "\n"), "");
  EXPECT_EQ(parse_error("a = " + std::string(65, '[') + std::string(65, ']') + "\n"), "exp.toml:1:69: " + too_deep);
  std::string tables = "a = ", closing;
  for (int k = 1; k < 64; ++k) tables += "{b = ", closing += "}";
  EXPECT_EQ(parse_error(tables + "1" + closing + "\n"), "");
  EXPECT_EQ(parse_error(tables + "{b = 1}" + closing + "\n"), "exp.toml:1:" + std::to_string(5 + 63 * 5 + 1) + ": " + too_deep);
  // An inline table's dotted keys and an array's tables count too, and a line's depth ends with it.
  EXPECT_EQ(parse_error("a = [{" + parts(62) + " = 1}]\n"), "");
  EXPECT_EQ(parse_error("a = [{" + parts(63) + " = 1}]\n"), "exp.toml:1:" + std::to_string(7 + 62 * 2) + ": " + too_deep);
  EXPECT_EQ(parse_error(parts(64) + " = 1\n" + parts(64) + "b = 2\n"), "");
  // pipegrid's own deepest file, a sweep's inline base, is far inside.
  EXPECT_EQ(parse_error("base = { parallel = { pp = 4 }, sim.schedule = \"1f1b\" }\n"), "");
}

TEST(ExperimentFile, StableHashIsFnv1a) {
  // FNV-1a 64 of "" and of "a", the published test vectors.
  EXPECT_EQ(stable_hash(""), "cbf29ce484222325");
  EXPECT_EQ(stable_hash("a"), "af63dc4c8601ec8c");
}

}  // namespace
}  // namespace pipegrid::input

namespace pipegrid::input {
namespace {

// Schedule and check took a model's options late: a run with explicit times keeps the identity (a
// sweep configuration's id) it had, a model's options count once given.
TEST(OptionIdentity, AModelsOptionsCountForScheduleOnlyWhenGiven) {
  const std::vector<std::string> job = {"--schedule", "1f1b", "--pp", "2", "--microbatches", "4"};
  const std::string plain = from_command_line(Command::Schedule, job).canonical_text();
  EXPECT_EQ(plain.find("parallel.tp="), std::string::npos) << plain;
  EXPECT_EQ(plain.find("model."), std::string::npos) << plain;
  EXPECT_NE(plain.find("sim.time_f=1"), std::string::npos) << plain;
  std::vector<std::string> modelled = job;
  for (const char* arg : {"--tp", "2", "--model", "gpt-1.7b"}) modelled.emplace_back(arg);
  const std::string text = from_command_line(Command::Schedule, modelled).canonical_text();
  EXPECT_NE(text.find("parallel.tp=2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("model.name=gpt-1.7b\n"), std::string::npos) << text;
  // Simulate's identity is every option's, given or by default, as before.
  const std::string simulate =
      from_command_line(Command::Simulate, {"--platform", "x.xml", "--schedule", "1f1b", "--pp", "2", "--microbatches", "4"})
          .canonical_text();
  EXPECT_NE(simulate.find("parallel.tp=1\n"), std::string::npos) << simulate;
}

}  // namespace
}  // namespace pipegrid::input
