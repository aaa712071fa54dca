#include "sim/input/option_schema.h"

#include <algorithm>
#include <climits>

#include "schedules/comm_plan.h"
#include "schedules/generators.h"
#include "schedules/p2p_mode.h"
#include "schedules/schedule_csv.h"
#include "sim/exec/exec_options.h"
#include "sim/input/schema_parts.h"
#include "sim/input/text_values.h"
#include "sim/model/kernels.h"
#include "sim/model/rank_layout.h"
#include "sim/output/trace_options.h"
#include "sim/platform/cluster_spec.h"
#include "sim/platform/presets.h"

namespace pipegrid::input {

namespace {

using enum Command;
using enum ValueType;
using namespace schema;

const Commands kLaidOut{Simulate, PlatformInfo};  // the layout's sizes: platform info --layout shows them
const Commands kTimed{Simulate, Schedule, Check};  // the commands that take explicit op times
const Commands kGen{PlatformGen, Simulate};         // platform gen's options: simulate generates with them too
const Commands kEvery{Simulate, Schedule, Check, PlatformGen, PlatformInfo, PlatformPerturb, Run, Sweep, Pitfalls,
                      Report, Plan};

std::vector<std::string> schedule_names(bool with_all) {
  std::vector<std::string> names;
  for (const GeneratorInfo& g : schedule_generators()) names.emplace_back(g.name);
  if (with_all) names.emplace_back("all");
  return names;
}

// --placement: Megatron-Core's order names (model/rank_layout.h).
std::string placement_syntax(std::string_view text) {
  std::vector<std::string> dims;
  return model::parse_rank_order(text, dims);
}

std::vector<std::string> platform_presets() {
  std::vector<std::string> names;
  for (const platform::Preset& preset : platform::presets()) names.push_back(preset.name);
  return names;
}

std::vector<OptionSpec> build_schema() {
  const std::vector<std::string> fidelity = names_of<sim::CommFidelity>(sim::kCommFidelities);
  // One entry per option, its fields packed, so that the table reads as a table. The model's entries
  // (model_options.cc) sit between the explicit costs and the fidelity switches.
  // clang-format off
  std::vector<OptionSpec> schema = {
      // --- what runs where --------------------------------------------------------------------------
      {.flag = "platform", .section = "platform", .key = "file", .commands = kSim, .type = Path,
       .help = "SimGrid platform XML (see platforms/)",
       .required = kSim, .instead = "preset"},
      // platform gen's options: simulate generates its platform with them instead of reading --platform
      {.flag = "preset", .section = "platform", .commands = kGen, .type = Choice, .choices = platform_presets(),
       .help = "the GPU node (simulate: generate the platform instead of --platform FILE)",
       .required = {PlatformGen}},
      {.flag = "nodes", .section = "platform", .commands = kGen, .type = Integer, .bounds = at_least(1, 1'000'000),
       .help = "nodes of 8 GPUs", .required = {PlatformGen}},
      {.flag = "nvlink-bw", .section = "platform", .commands = kGen, .type = Text, .unit = "bytes/s",
       .help = "one GPU's NVLink per direction: 300GBps, 2400Gbps or bytes/s", .syntax = bandwidth_syntax},
      {.flag = "ib-bw", .section = "platform", .commands = kGen, .type = Text, .unit = "bytes/s",
       .help = "one InfiniBand port per direction: 25GBps, 200Gbps, …", .syntax = bandwidth_syntax},
      {.flag = "nics-per-node", .section = "platform", .commands = kGen, .type = Integer, .bounds = at_least(1, 8),
       .help = "InfiniBand ports (rails) per node: 1, 2, 4 or 8"},
      {.flag = "oversubscription", .section = "platform", .commands = kGen, .type = Number,
       .bounds = at_least(1, 1e6), .help = "leaf down- over uplink capacity, at least 1 (non-blocking)"},
      {.flag = "nodes-per-leaf", .section = "platform", .commands = kGen, .type = Integer,
       .bounds = at_least(1, 1'000'000), .help = "nodes under one leaf switch (scalable unit)"},
      {.flag = "zones", .section = "platform", .commands = kGen, .type = Choice, .choices = names_of<platform::ZoneLayout>(platform::kZoneLayouts),
       .default_text = "flat",
       .help = "SimGrid zones: flat (one zone, SimGrid's Dijkstra finds the routes) or per-node (a zone per node and "
               "per leaf group, every route written out; needs --nics-per-node 1)"},
      {.flag = "schedule", .section = "sim", .commands = kSim, .type = Choice, .choices = schedule_names(false),
       .help = "the pipeline schedule each rank runs (or --schedule-file)"},
      {.flag = "schedule-file", .section = "sim", .commands = kSim, .type = Path,
       .help = "a hand-written schedule: CSV as for check, compute-only or with comm actions (instead of --schedule)"},
      {.flag = "stage-placement", .section = "sim", .commands = kSim, .type = Choice, .choices = names_of<CsvPlacement>(kCsvPlacements),
       .default_text = "inferred", .help = "with --schedule-file: where its stages live, as check's --placement"},
      {.flag = "schedule", .section = "sim", .commands = {Schedule}, .type = Choice, .choices = schedule_names(true),
       .help = "the schedule to generate, or all to compare them", .required = {Schedule}},
      {.flag = "file", .commands = {Check}, .type = Path,
       .help = "CSV: one line per rank, one action per cell (2F0, 3B1, 0I4, 0W4, (0F7;7B3))", .required = {Check},
       .positional = true},
      {.flag = "pp", .section = "parallel", .commands = {Simulate, Schedule, PlatformInfo}, .type = Integer, .unit = "ranks",
       .bounds = at_least(1), .help = "pipeline-parallel size p (with --schedule-file: its lines)",
       .required = {Schedule}},
      {.flag = "microbatches", .section = "parallel", .commands = {Simulate, Schedule}, .type = Integer,
       .bounds = at_least(1), .help = "micro-batches m per step (with --schedule-file: its own)", .required = {Schedule}},
      {.flag = "chunks", .section = "parallel", .commands = {Simulate, Schedule}, .type = Integer,
       .bounds = not_negative(kIntMax), .default_text = "0",
       .help = "virtual stages v per rank (0: the schedule's own, 2 for interleaved)"},
      {.flag = "tp", .section = "parallel", .commands = kLaidOut, .type = Integer, .unit = "GPUs", .bounds = at_least(1),
       .default_text = "1", .help = "tensor-parallel size t (a TP group stays in one node)"},
      {.flag = "dp", .section = "parallel", .commands = kLaidOut, .type = Integer, .unit = "replicas",
       .bounds = at_least(1), .default_text = "1", .help = "data-parallel size d"},
      {.flag = "cp", .section = "parallel", .commands = kLaidOut, .type = Integer, .unit = "GPUs",
       .bounds = at_least(1), .default_text = "1",
       .help = "context-parallel size: each of cp GPUs holds s/cp tokens of every sequence (needs a model)",
       .identity_when_given = kSim},
      {.flag = "cp-algo", .section = "parallel", .commands = kLaidOut, .type = Choice,
       .choices = names_of<model::CpAlgo>(model::kCpAlgos), .default_text = "ring",
       .help = "context-parallel attention: ring (Megatron-Core/Transformer Engine p2p, KV blocks passed round "
               "the CP group, load-balanced causal split) or all-to-all (DeepSpeed-Ulysses, heads re-sharded)",
       .identity_when_given = kSim},
      {.flag = "placement", .section = "parallel", .commands = kLaidOut, .type = Text, .default_text = "tp-dp-pp",
       .help = "order of the dimensions over the GPUs, fastest first: tp, dp, pp and optionally cp and ep, as "
               "Megatron-Core's tp-cp-ep-dp-pp (cp left out goes after tp, ep before dp: tp-dp-pp is that order)",
       .syntax = placement_syntax},
      {.flag = "placement", .commands = {Check}, .type = Choice, .choices = names_of<CsvPlacement>(kCsvPlacements),
       .default_text = "inferred",
       .help = "where stages live: inferred (the rank that runs a stage holds it), loop (s mod p) or v"},
      {.flag = "allow-tp-across-nodes", .section = "parallel", .commands = kSim, .type = Flag, .default_text = "false",
       .help = "let a TP group span nodes"},
      {.flag = "ep", .section = "parallel", .commands = kLaidOut, .type = Integer, .unit = "GPUs", .bounds = at_least(1),
       .default_text = "1", .help = "MoE: expert-parallel size (GPUs of a stage sharing a layer's experts)"},
      {.flag = "etp", .section = "parallel", .commands = kLaidOut, .type = Integer, .unit = "GPUs", .bounds = at_least(1),
       .help = "MoE: expert tensor-parallel size (GPUs splitting each expert's GEMMs; Megatron-Core's "
               "expert_tensor_parallel_size, and as there --tp when not given)"},

      // --- explicit costs ---------------------------------------------------------------------------
      {.flag = "time-f", .section = "sim", .commands = kTimed, .type = Number, .unit = "s",
       .bounds = not_negative(kMaxSeconds), .default_text = "1",
       .help = "forward time of one micro-batch on one virtual stage"},
      {.flag = "time-b", .section = "sim", .commands = kTimed, .type = Number, .unit = "s",
       .bounds = not_negative(kMaxSeconds), .default_text = "2", .help = "full backward time (I + W)"},
      {.flag = "time-w", .section = "sim", .commands = kTimed, .type = Number, .unit = "s",
       .bounds = not_negative(kMaxSeconds), .default_text = "1",
       .help = "weight-gradient part W of the backward; I = B - W"},
      {.flag = "time-fb", .section = "sim", .commands = kTimed, .type = Number, .unit = "s",
       .bounds = not_negative(kMaxSeconds), .help = "time of an overlapped F&B pair (default F + B)"},
      {.flag = "p2p-bytes", .section = "sim", .commands = kSim, .type = Number, .unit = "bytes",
       .bounds = not_negative(kMaxBytes), .default_text = "0",
       .help = "with explicit times: bytes sent per stage boundary and micro-batch"},
      {.flag = "p2p-latency", .section = "sim", .commands = {Schedule, Check}, .type = Number, .unit = "s",
       .bounds = not_negative(kMaxSeconds), .default_text = "0", .help = "added to every dependency between two ranks"},

  };
  const std::vector<OptionSpec> model = model_options();
  schema.insert(schema.end(), model.begin(), model.end());
  const std::vector<OptionSpec> rest = {
      // --- fidelity ---------------------------------------------------------------------------------
      {.flag = "p2p", .section = "sim", .commands = kTimed, .type = Choice, .choices = names_of<P2pMode>(kP2pModes),
       .default_text = "async",
       .help = "p2p semantics: async (a send never blocks) or rendezvous (a send ends when the receiver has the data; "
               "blocking is another name for it)"},
      {.flag = "comm-plan", .section = "sim", .commands = kTimed, .type = Choice,
       .choices = names_of(comm_plans()),
       .default_text = "framework",
       .help = "how sends and receives are posted and waited: a framework's own order (framework: the one that ships "
               "the schedule), per-op (an op's sends with the next op's receives) or blocking-calls (one at a time)"},
      {.flag = "p2p-channels", .section = "sim", .commands = kTimed, .type = Integer, .bounds = at_least(1, 64),
       .default_text = "1", .help = "NCCL-like channels per pair of GPUs; a channel carries its messages in order"},
      {.flag = "tp-comm", .section = "sim", .commands = kSim, .type = Choice, .choices = fidelity,
       .default_text = "analytic", .help = "TP all-reduces (reduce-scatters and all-gathers with --sequence-parallel): flow, analytic or off"},
      {.flag = "tp-comm-overlap", .section = "sim", .commands = kSim, .type = Flag, .default_text = "false",
       .help = "Transformer Engine's userbuffers (needs --sequence-parallel): each TP reduce-scatter and all-gather "
               "under its GEMM, a pair costing the longer of the two",
       .identity_when_given = kSim},
      {.flag = "tp-comm-overlap-sms", .section = "sim", .commands = kSim, .type = Integer, .unit = "SMs",
       .bounds = at_least(0, 1024), .default_text = "16",
       .help = "SMs a --tp-comm-overlap reduce-scatter takes from its GEMM (Transformer Engine's pipelined "
               "default, num_sm 16; its ring-exchange all-gathers take none)",
       .identity_when_given = kSim},
      {.flag = "cp-comm", .section = "sim", .commands = kSim, .type = Choice, .choices = fidelity,
       .default_text = "analytic",
       .help = "context-parallel KV sends (ring) or all-to-alls: flow, analytic (alpha-beta on the route, as "
               "--tp-comm) or off",
       .identity_when_given = kSim},
      {.flag = "dp-comm", .section = "sim", .commands = kSim, .type = Choice, .choices = fidelity,
       .default_text = "flow", .help = "gradient all-reduces: flow, analytic or off"},
      {.flag = "ep-comm", .section = "sim", .commands = kSim, .type = Choice, .choices = fidelity,
       .default_text = "flow",
       .help = "MoE all-to-alls and the ETP group's all-gathers and reduce-scatters: flow, analytic or off"},
      {.flag = "ep-flows", .section = "sim", .commands = kSim, .type = Choice, .choices = names_of<sim::EpFlows>(sim::kEpFlows),
       .default_text = "deepep",
       .help = "MoE all-to-alls as flows: deepep (InfiniBand once per node to the sender's rail peer, which forwards "
               "over NVLink; combine the reverse) or pairwise (a flow from every member to every other)"},
      {.flag = "ring-flows", .section = "sim", .commands = kSim, .type = Choice,
       .choices = names_of<sim::RingFlows>(sim::kRingFlows), .default_text = "auto",
       .help = "ring collectives run as flows (TP, DP, ETP): steps (each of the 2(n-1) steps a flow per member, "
               "the next waiting for it), streamed (one flow per member of all its steps' bytes, as NCCL "
               "pipelines its slices: far fewer flows, but a late member delays only its own flows) or auto "
               "(steps up to 16 members, streamed above)",
       .identity_when_given = kSim},
      {.flag = "steps", .section = "sim", .commands = kSim, .type = Integer, .bounds = at_least(1, 256),
       .default_text = "1", .help = "training steps run back to back, each ending with the optimizer"},
      {.flag = "optimizer-sync", .section = "sim", .commands = kSim, .type = Choice,
       .choices = names_of<sim::OptimizerSync>(sim::kOptimizerSyncs), .default_text = "allreduce",
       .help = "the check before the optimizer's update: Megatron's all-reduce (a barrier), the zero-bubble "
               "paper's post-validation, or none (the pipeline alone)"},
      {.flag = "time-optimizer", .section = "sim", .commands = kSim, .type = Number, .unit = "s",
       .bounds = not_negative(kMaxSeconds), .default_text = "0",
       .help = "with explicit times: the optimizer's update on each GPU"},
      {.flag = "hbm-bandwidth", .section = "model", .commands = kSim, .type = Number, .unit = "bytes/s",
       .bounds = interval(0, true, 1e15, false),
       .help = "GPU memory bandwidth (default the GPU file's; with --compute-efficiency, A100 80 GB SXM's 2.039e12)"},
      {.flag = "nccl-nvlink-efficiency", .section = "sim", .commands = kSim, .type = Number,
       .bounds = interval(0, true, 1, false), .default_text = "0.76",
       .help = "NCCL all-reduce bus bandwidth between GPUs of a node, as a share of the NVLink's (nccl-tests on 8 "
               "A100: 0.76); 1: the links' full rate"},
      {.flag = "gpu-file", .section = "model", .commands = kSim, .type = Path,
       .help = "a GPU description (TOML as platforms/gpus/, constants in its [constants] table or a shipped "
               "calibration) instead of the one the platform's gpu_model names"},
      {.flag = "grad-accumulation", .section = "model", .commands = kSim, .type = Choice, .choices = names_of<bool>(model::kGradAccumulations),
       .default_text = "fused",
       .help = "weight gradients accumulated inside the GEMM (Megatron's --gradient-accumulation-fusion) or by an add "
               "kernel per tensor and micro-batch (Megatron of 2021, plain autograd)"},
      {.flag = "optimizer-bytes", .section = "model", .commands = kSim, .type = Number, .unit = "bytes/parameter",
       .bounds = interval(0, false, 1e6, false), .default_text = "42",
       .help = "bytes the optimizer's step streams per parameter it updates (Megatron's mixed-precision Adam)"},
      {.flag = "grad-overlap", .section = "sim", .commands = kSim, .type = Choice, .choices = names_of<bool>(sim::kOnOff),
       .default_text = "on",
       .help = "reduce gradient buckets as the backward produces them (Megatron's --overlap-grad-reduce), or after "
               "the step"},
      {.flag = "grad-sync-order", .section = "sim", .commands = kSim, .type = Choice,
       .choices = names_of<sim::GradSyncOrder>(sim::kGradSyncOrders), .default_text = "megatron",
       .help = "order of a GPU's step-end gradient collectives: megatron (data-parallel, then the tied embeddings: "
               "finalize_model_grads), embedding-first, by-stage (the first stage's embedding first, the last's "
               "data-parallel first) or crossed (embedding first where pp + dp is even: a deadlock)"},
      {.flag = "param-gather-overlap", .section = "sim", .commands = kSim, .type = Choice, .choices = names_of<bool>(sim::kOnOff),
       .default_text = "on",
       .help = "with --distributed-optimizer: all-gather the updated parameters behind the next step's forwards "
               "(Megatron's --overlap-param-gather) or at once"},
      {.flag = "grad-bucket-size", .section = "sim", .commands = kSim, .type = Number, .unit = "parameters",
       .bounds = interval(0, true, 1e15, false),
       .help = "gradient bucket of pipeline rank 0's first chunk (default Megatron's max(4e7, 1e6 x dp))"},
      {.flag = "comm-sm-fraction", .section = "sim", .commands = kSim, .type = Number,
       .bounds = interval(0, false, 1, true), .default_text = "0",
       .help = "share of the SMs communication takes in an overlapped F&B pair (DeepSeek-V3: 20/132)"},
      {.flag = "on-failure", .section = "sim", .commands = kSim, .type = Choice, .choices = names_of<sim::OnFailure>(sim::kOnFailures),
       .default_text = "fail",
       .help = "when a link's state profile cuts a flow: fail the job (exit 4, failure.json) or resend the flow once "
               "the link is on again; a host going down always fails it (SimGrid kills its actors)"},
      {.flag = "tp-lockstep", .section = "sim", .commands = kSim, .type = Choice, .choices = names_of<bool>(sim::kAutoOff),
       .default_text = "auto",
       .help = "auto: one SimGrid actor per TP group whose members run in lockstep (TP > 1, --tp-comm analytic or off, "
               "no MoE, one node, one speed) — the same results as one per GPU when the members' inputs arrive "
               "together, as on a rail-symmetric platform; off: one actor per GPU"},
      {.flag = "rail-fold", .section = "sim", .commands = kSim, .type = Choice, .choices = names_of<bool>(sim::kAutoOff),
       .default_text = "auto",
       .help = "auto: where every TP group runs in lockstep and each rail's routes are images of rail 0's (same "
               "bandwidths, latencies and sharing, no link on two rails, nothing time-varying), SimGrid carries "
               "one flow for the TP members' copies, each copy accounted on its own links — the same results "
               "as off; off: one flow per GPU"},
      {.flag = "route-search", .section = "sim", .commands = kSim, .type = Choice, .choices = names_of<bool>(sim::kRouteSearches),
       .default_text = "auto",
       .help = "auto: with the rails folded on a platform of one Dijkstra zone, the routes of rails k > 0 (whose flows "
               "SimGrid never carries) found by pipegrid's copy of SimGrid 3.32's search, every rail-0 route checked "
               "against SimGrid's; simgrid: SimGrid finds every route (a Dijkstra per GPU)"},
      {.flag = "simgrid-flows", .section = "sim", .commands = kSim, .type = Choice, .choices = names_of<bool>(sim::kSimGridFlows),
       .default_text = "exec",
       .help = "how SimGrid carries each flow — the same network action either way: exec, an Exec on its two "
               "hosts made by an actor per sending GPU, whose end SimGrid 3.32 finds among that GPU's flows; "
               "comm, a host-to-host Comm, all of which SimGrid 3.32 lists in one list that each flow's end "
               "walks (slower with many flows in flight); SimGrid's IB network model and flows of 0 bytes "
               "always take comm"},

      // --- outputs ----------------------------------------------------------------------------------
      {.flag = "out", .section = "output", .commands = kTimed, .type = Text,
       .help = "directory for the run's files (summary.json and the traces, or schedule.csv)", .identity = false,
       .names_path = true},
      {.flag = "report", .section = "output", .commands = kTimed, .type = Flag, .default_text = "false",
       .help = "after the run, write DIR/report.html from its --out files (as pipegrid report DIR does)",
       .identity = false},
      {.flag = "trace", .section = "output", .commands = kSim, .type = Choice,
       .choices = names_of<output::TraceScope>(output::kTraceScopes), .default_text = "auto",
       .help = "which GPUs the trace keeps: all, pipeline (one per pipeline rank: tp 0, dp 0), off, or auto: "
               "all in a job of at most 256 GPUs, pipeline above (every GPU of 3072 was 2.5 GB)"},
      {.flag = "trace-json", .section = "output", .commands = kSim, .type = Choice,
       .choices = names_of<output::TraceJson>(output::kTraceJsons), .default_text = "auto",
       .help = "trace.json as plain text, or gzip-compressed as trace.json.gz (Perfetto opens both); auto: gzip "
               "when the trace keeps more than 256 GPUs"},
      {.flag = "link-window", .section = "output", .commands = kSim, .type = Number, .unit = "s",
       .bounds = interval(0, true, kMaxSeconds, false), .default_text = "0.001",
       .help = "window of links.csv's peak_utilization (the busiest window, wherever it starts) and of "
               "links_timeline.csv's rows (a fixed grid from 0)"},
      {.flag = "link-timeline", .section = "output", .commands = kSim, .type = Flag, .default_text = "false",
       .help = "also write links_timeline.csv under --out: each link's bytes per --link-window (148 MB for the "
               "256-GPU platform-what-ifs job at 1 ms, so not by default)"},
      {.flag = "format", .section = "output", .commands = kSim, .type = Choice, .choices = {"table", "json"},
       .default_text = "table", .help = "terminal output", .identity = false},
      {.flag = "format", .section = "output", .commands = {Schedule, Check}, .type = Choice,
       .choices = {"table", "timeline", "csv", "json"}, .default_text = "table",
       .help = "table, timeline (ASCII diagram), csv (the programs) or json", .identity = false},
      {.flag = "width", .section = "output", .commands = {Schedule, Check}, .type = Integer, .unit = "columns",
       .bounds = at_least(20, 20000),
       .help = "--format timeline fits in this many columns (default $COLUMNS if a number, else 100)",
       .identity = false},
      {.flag = "plot", .section = "output", .commands = {Schedule, Check}, .type = Text,
       .help = "FILE.png: the Gantt chart of the run's trace.csv, drawn by experiments/plot/gantt.py (--out's, "
               "else a temporary directory's)",
       .identity = false, .names_path = true},

      // --- platform gen and info ------------------------------------------------------------------
      {.flag = "file", .commands = {PlatformInfo}, .type = Path, .help = "a SimGrid platform file (DTD 4.1)",
       .required = {PlatformInfo}, .positional = true},
      {.flag = "layout", .commands = {PlatformInfo}, .type = Flag, .default_text = "false",
       .help = "where the groups of a job of --tp, --pp, --dp (and --ep, --etp) land, in --placement's order"},
      {.flag = "route", .commands = {PlatformInfo}, .type = HostPair,
       .help = "two host names, e.g. --route node0-gpu0 node1-gpu0"},
      {.flag = "file", .commands = {PlatformPerturb}, .type = Path, .help = "a SimGrid platform file (DTD 4.1)",
       .required = {PlatformPerturb}, .positional = true},
      {.flag = "slow-gpu", .commands = {PlatformPerturb}, .type = Texts,
       .help = "HOST=F@T: the GPU at F (0 < F <= 1) of its speed from T seconds on (a speed_file)"},
      {.flag = "degrade-link", .commands = {PlatformPerturb}, .type = Texts,
       .help = "LINK=F@T: the link at F (0 < F <= 1) of its declared bandwidth from T seconds on (a bandwidth_file)"},
      {.flag = "fail", .commands = {PlatformPerturb}, .type = Texts,
       .help = "NAME@T or NAME@T..T2: the host or link off from T seconds, on again at T2 (a state_file)"},
      {.flag = "out", .commands = {PlatformPerturb}, .type = Text,
       .help = "DIR: DIR/platform.xml and its profile files beside it", .required = {PlatformPerturb}},

      // --- run and sweep ----------------------------------------------------------------------------
      {.flag = "file", .commands = {Run}, .type = Path,
       .help = "experiment.toml: [platform] [parallel] [model] [sim] [output]", .required = {Run}, .positional = true},
      {.flag = "plot", .commands = {Run}, .type = Flag, .default_text = "false",
       .help = "draw DIR/gantt.png from the run's trace"},
      {.flag = "file", .commands = {Sweep}, .type = Path, .help = "sweep.toml: base experiment, [axes], [[zip]]",
       .required = {Sweep}, .positional = true},
      {.flag = "out", .commands = {Sweep}, .type = Text, .help = "DIR: results.csv and runs/ID/ for each configuration",
       .required = {Sweep}},
      {.flag = "jobs", .commands = {Sweep}, .type = Integer, .bounds = at_least(1, 4096),
       .help = "configurations at once (default: one per core)"},
      {.flag = "timeout", .commands = {Sweep}, .type = Number, .unit = "s", .bounds = not_negative(kMaxSeconds),
       .default_text = "0", .help = "wall time a run may take (0: no limit)"},
      {.flag = "force", .commands = {Sweep}, .type = Flag, .default_text = "false",
       .help = "run every configuration again, done or not"},
      {.flag = "shard", .commands = {Sweep}, .type = Text, .help = "I/K: run only configurations I, I + K, I + 2K, …",
       .syntax = shard_syntax},
      {.flag = "merge", .commands = {Sweep, Plan}, .type = Flag, .default_text = "false",
       .help = "gather the shards' results into DIR/results.csv"},
      {.flag = "slurm", .commands = {Sweep, Plan}, .type = Flag, .default_text = "false",
       .help = "submit the sweep as a Slurm job array instead of running it"},
      {.flag = "partition", .commands = {Sweep, Plan}, .type = Text, .help = "Slurm partition"},
      {.flag = "array-size", .commands = {Sweep, Plan}, .type = Integer, .bounds = at_least(1, 1'000'000),
       .default_text = "1", .help = "Slurm array tasks (shards)"},
      {.flag = "jobs-per-task", .commands = {Sweep, Plan}, .type = Integer, .bounds = at_least(1, 4096), .default_text = "1",
       .help = "configurations at once in each Slurm task"},

      // --- pitfalls ---------------------------------------------------------------------------------
      {.flag = "name", .commands = {Pitfalls}, .type = Text,
       .help = "a lesson of the catalogue to run, broken then fixed (none: list the lessons)", .positional = true},
      {.flag = "out", .commands = {Pitfalls}, .type = Text,
       .help = "DIR: broken/ and fixed/ (fixed-NAME/ when several), each with its run's files and lesson.json",
       .identity = false},
      {.flag = "report", .commands = {Pitfalls}, .type = Flag, .default_text = "false",
       .help = "write each run's report.html and DIR/report.html, the lesson's page with every run", .identity = false},
      {.flag = "plot", .commands = {Pitfalls}, .type = Flag, .default_text = "false",
       .help = "draw each run's gantt.png (and wait-for.png for a deadlock) with experiments/plot/gantt.py",
       .identity = false},
      {.flag = "catalogue", .commands = {Pitfalls}, .type = Text,
       .help = "the folder of lessons (default: experiments/pitfalls of the source tree pipegrid was built from)"},
      {.flag = "timeout", .commands = {Pitfalls}, .type = Number, .unit = "s", .bounds = interval(0, true, 3600, false),
       .default_text = "60", .help = "wall time each run may take before it is killed"},
      // --- report -----------------------------------------------------------------------------------
      {.flag = "dir", .commands = {Report}, .type = Text,
       .help = "output directory of a run (summary.json, trace.csv, deadlock.json, links.csv, experiment.toml, "
               "lesson.json) or of a pitfall (broken/ and fixed/)",
       .required = {Report}, .positional = true},

      // --- what a command says on stderr while it works -----------------------------------------------
      {.flag = "progress", .section = "output", .commands = {Simulate, Run}, .type = Choice,
       .choices = {"auto", "on", "off"}, .default_text = "auto",
       .help = "one self-updating line on stderr while the simulation runs (simulated time, ops done, wall time, "
               "ETA): on, off, or auto (on a terminal, once the run has taken 2 s)",
       .identity = false},
      {.flag = "log-level", .section = "output", .commands = kEvery, .type = Choice,
       .choices = {"off", "error", "warn", "info", "debug", "trace"}, .default_text = "warn",
       .help = "what pipegrid logs on stderr: warn its warnings; debug each layer's events (the layout, the "
               "platform, the schedule and its check, the actors, the simulated end, a sweep's runs); trace "
               "also every flow, host, link and rank's program; SimGrid's own log at the matching level",
       .identity = false},
  };
  // clang-format on
  schema.insert(schema.end(), rest.begin(), rest.end());
  const std::vector<OptionSpec> plan = plan_options();
  schema.insert(schema.end(), plan.begin(), plan.end());
  return schema;
}

// `schedule` and `check` time a model too (the contention-free engine, priced as simulate prices
// it): every option of the model and the platform simulate takes, the layout's, and those of the
// executor's that change what the step costs without contention. A rule rather than a list, so that a
// new model option serves all three. Check keeps its --placement (the CSV's stages): its GPUs go in
// Megatron's order.
// `plan` searches layouts of what simulate runs: it takes every model, platform, layout and executor
// option simulate does (a layout option given fixes that axis), but not simulate's outputs.
std::vector<OptionSpec> widen_to_plan(std::vector<OptionSpec> schema) {
  for (OptionSpec& option : schema)
    if (option.commands.contains(Simulate) && !option.commands.contains(Plan) && option.section != "output" &&
        !option.positional)
      option.commands = option.commands.with(Plan);
  return schema;
}

std::vector<OptionSpec> widen_to_model_timing(std::vector<OptionSpec> schema) {
  constexpr std::string_view kLayout[] = {"tp", "dp", "allow-tp-across-nodes", "ep", "etp", "cp", "cp-algo"};
  constexpr std::string_view kStepCosts[] = {"grad-overlap",         "grad-bucket-size", "grad-sync-order",
                                             "param-gather-overlap", "optimizer-sync",   "nccl-nvlink-efficiency",
                                             "tp-comm-overlap",      "tp-comm-overlap-sms"};
  const auto listed = [](const auto& flags, std::string_view flag) {
    return std::find(std::begin(flags), std::end(flags), flag) != std::end(flags);
  };
  for (OptionSpec& option : schema) {
    if (!option.commands.contains(Simulate)) continue;
    if (option.section == "model" || option.section == "platform" || listed(kLayout, option.flag) ||
        listed(kStepCosts, option.flag)) {
      option.commands = option.commands.with(Schedule).with(Check);
      option.identity_when_given = option.identity_when_given.with(Schedule).with(Check);
    } else if (option.section == "parallel" && option.flag == "placement") {
      option.commands = option.commands.with(Schedule);
      option.identity_when_given = option.identity_when_given.with(Schedule);
    }
  }
  return schema;
}

}  // namespace

namespace {

constexpr Named<Command> kCommandNames[] = {
    {"simulate", Command::Simulate},       {"schedule", Command::Schedule},
    {"check", Command::Check},             {"platform gen", Command::PlatformGen},
    {"platform info", Command::PlatformInfo}, {"platform perturb", Command::PlatformPerturb},
    {"run", Command::Run},                 {"sweep", Command::Sweep},
    {"pitfalls", Command::Pitfalls},       {"report", Command::Report},
    {"plan", Command::Plan}};

}  // namespace

std::string_view command_name(Command command) { return name_of<Command>(kCommandNames, command); }

std::string OptionSpec::toml_key() const {
  if (!key.empty()) return std::string(key);
  std::string text(flag);
  std::replace(text.begin(), text.end(), '-', '_');
  return text;
}

std::string OptionSpec::key_name() const {
  return section.empty() ? std::string() : std::string(section) + "." + toml_key();
}

const std::vector<OptionSpec>& option_schema() {
  static const std::vector<OptionSpec> schema = widen_to_plan(widen_to_model_timing(build_schema()));
  return schema;
}

std::vector<const OptionSpec*> options_of(Command command) {
  std::vector<const OptionSpec*> options;
  for (const OptionSpec& option : option_schema())
    if (option.commands.contains(command)) options.push_back(&option);
  return options;
}

const OptionSpec* find_option(Command command, std::string_view flag) {
  for (const OptionSpec& option : option_schema())
    if (option.commands.contains(command) && option.flag == flag) return &option;
  return nullptr;
}

const OptionSpec* find_experiment_key(Command command, std::string_view section, std::string_view key) {
  for (const OptionSpec& option : option_schema())
    if (option.commands.contains(command) && option.section == section && option.toml_key() == key) return &option;
  return nullptr;
}

bool is_experiment_key(std::string_view path) {
  for (const OptionSpec& option : option_schema())
    for (Command command : kExperimentCommands)
      if (option.commands.contains(command) && option.key_name() == path) return true;
  return false;
}

}  // namespace pipegrid::input
