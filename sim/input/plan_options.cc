// `pipegrid plan`'s own options (docs/guide/planning.md); it takes simulate's model, platform and executor
// options too (option_schema.cc, widen_to_plan). Part of the one table of options, kept in a file of
// its own for its length.
#include <vector>

#include "sim/input/schema_parts.h"
#include "sim/input/text_values.h"

namespace pipegrid::input::schema {

std::vector<OptionSpec> plan_options() {
  using enum Command;
  using enum ValueType;
  // clang-format off
  return {
    {.flag = "file", .commands = {Plan}, .type = Path,
     .help = "plan.toml: the plan's options as keys ([model], [platform], …, [plan]); flags override them",
     .positional = true},
    {.flag = "global-batch", .section = "plan", .commands = {Plan}, .type = Integer, .unit = "sequences",
     .bounds = at_least(1), .help = "sequences per step, whatever the layout", .required = {Plan}},
    {.flag = "gpus", .section = "plan", .commands = {Plan}, .type = Text,
     .help = "GPUs the job takes, or a list to compare (256,512,1024); default: all of the platform's",
     .syntax = gpu_counts_syntax},
    {.flag = "memory", .section = "plan", .commands = {Plan}, .type = Number, .unit = "GiB",
     .bounds = interval(0, true, 1e6, false),
     .help = "memory a GPU may hold (default: its GPU file's capacity less the reserve, docs/guide/planning.md)"},
    {.flag = "top", .section = "plan", .commands = {Plan}, .type = Integer, .bounds = at_least(1, 100'000),
     .default_text = "20", .help = "layouts simulated with contention, the best by the contention-free estimate"},
    {.flag = "space", .section = "plan", .commands = {Plan}, .type = Texts,
     .help = "AXIS=V1,V2,…: only these values of an axis (tp, pp, cp, ep, micro-batch, schedule, chunks, "
             "recompute, sequence-parallel, zero, grad-overlap, precision, placement, cp-algo, "
             "tp-comm-overlap, layer-split)"},
    {.flag = "also", .section = "plan", .commands = {Plan}, .type = Texts,
     .help = "a layout to simulate whatever its estimate, as plan.csv writes one (\"tp=8 pp=8 …\")"},
    {.flag = "tokens", .section = "plan", .commands = {Plan}, .type = Number, .bounds = interval(0, true, 1e18, false),
     .help = "tokens to train on: adds days and GPU-hours to the table"},
    {.flag = "out", .section = "plan", .commands = {Plan}, .type = Text,
     .help = "DIR: plan.csv, best.toml, simulate.toml and the simulated runs", .required = {Plan}, .names_path = true},
    {.flag = "jobs", .section = "plan", .commands = {Plan}, .type = Integer, .bounds = at_least(1, 4096),
     .help = "estimates and simulations at once (default: one per core)"},
    {.flag = "report", .section = "plan", .commands = {Plan}, .type = Flag, .default_text = "false",
     .help = "also write DIR/report.html: the plan as one self-contained page"},
  };
  // clang-format on
}

}  // namespace pipegrid::input::schema
