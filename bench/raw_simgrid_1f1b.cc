// The baseline of the executor's speed (issue 14): one 1F1B step as a person would write it in plain
// SimGrid 3.32 — an actor per GPU running its rank's loop, an exec per computation, a detached put per
// activation or gradient, a blocking get per input; no TP or DP traffic, accounting or trace. The job is
// resolved by pipegrid's own run layer (run::resolve_simulation), so the work is the executor's.
//   bench_raw_simgrid_1f1b [--cfg=SIMGRID_KEY:VALUE …] SIMULATE_OPTIONS   (--schedule 1f1b)
#include <algorithm>
#include <chrono>
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <iostream>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <sys/resource.h>
#include <vector>
#include <xbt/config.hpp>

#include "common/exit_codes.h"
#include "common/input_error.h"
#include "sim/cli/command_options.h"
#include "sim/run/simulation_run.h"

namespace sg4 = simgrid::s4u;

namespace {

// What one GPU's loop needs: its rank, its neighbours' mailboxes and the job's per-stage work.
struct RawGpu {
  int rank = 0, ranks = 1, microbatches = 1;
  double forward_flops = 0, backward_flops = 0;
  double activation_bytes = 0, gradient_bytes = 0;  // sent to the next stage, to the previous one
  sg4::Mailbox* activations_in = nullptr;   // from the previous stage
  sg4::Mailbox* gradients_in = nullptr;     // from the next stage
  sg4::Mailbox* next_activations = nullptr;  // the next stage's activations_in
  sg4::Mailbox* previous_gradients = nullptr;
};

std::uint64_t execs = 0, comms = 0;  // actors run one at a time: plain counters are exact
char payload = 0;                    // SimGrid moves a pointer; the simulated size is what costs

void put(sg4::Mailbox* to, double bytes) {
  to->put_init(&payload, static_cast<std::uint64_t>(bytes))->detach();
  ++comms;
}

void forward(const RawGpu& g) {
  if (g.rank > 0) g.activations_in->get<char>();
  sg4::this_actor::execute(g.forward_flops);
  ++execs;
  if (g.rank + 1 < g.ranks) put(g.next_activations, g.activation_bytes);
}

void backward(const RawGpu& g) {
  if (g.rank + 1 < g.ranks) g.gradients_in->get<char>();
  sg4::this_actor::execute(g.backward_flops);
  ++execs;
  if (g.rank > 0) put(g.previous_gradients, g.gradient_bytes);
}

// Megatron-LM's 1F1B (megatron/core/pipeline_parallel/schedules.py,
// forward_backward_pipelining_without_interleaving): p − r − 1 warm-up forwards, then one forward and
// one backward at a time, then the warm-up's backwards.
void run_rank(const RawGpu& g) {
  // A permanent receiver makes a detached put start its flow at once, as pipegrid's default --p2p
  // async does (a NCCL send queued on its stream); without it the flow would wait for the get.
  g.activations_in->set_receiver(sg4::Actor::self());
  g.gradients_in->set_receiver(sg4::Actor::self());
  const int warmup = std::min(g.ranks - g.rank - 1, g.microbatches);
  for (int i = 0; i < warmup; ++i) forward(g);
  for (int i = 0; i < g.microbatches - warmup; ++i) {
    forward(g);
    backward(g);
  }
  for (int i = 0; i < warmup; ++i) backward(g);
  g.activations_in->set_receiver(nullptr);
  g.gradients_in->set_receiver(nullptr);
}

struct Clock {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  double cpu = cpu_seconds();
  static double cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  }
  double wall_since() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count(); }
  double cpu_since() const { return cpu_seconds() - cpu; }
};

int run(int argc, char** argv) {
  const Clock resolving;
  sg4::Engine engine(&argc, argv);  // takes the --cfg=… arguments out of argv
  CLI::App app{"bench_raw_simgrid_1f1b: 1F1B in plain SimGrid on pipegrid's job", "bench_raw_simgrid_1f1b"};
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  const pipegrid::cli::CommandOptions options(app, pipegrid::input::Command::Simulate);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? pipegrid::kExitOk : pipegrid::kExitInputError;
  }
  const pipegrid::input::OptionValues values = options.values();
  if (values.text("schedule") != "1f1b")
    throw pipegrid::InputError("--schedule: this bench runs 1f1b only (pipegrid's other schedules are compared "
                               "against the same 1F1B loop)");
  const pipegrid::run::ResolvedRun resolved = pipegrid::run::resolve_simulation(pipegrid::run::simulation_spec(values));
  const pipegrid::sim::SimulationInput& in = resolved.input;
  const pipegrid::sim::Placement& placement = in.placement;
  const double resolve_wall = resolving.wall_since(), resolve_cpu = resolving.cpu_since();

  const Clock simulating;
  engine.load_platform(in.platform_file);
  // SimGrid's lazy solver reads a TCP window bound of 0 (the platform's network/TCP-gamma 0, "no
  // bound") as a rate of 0 that it then ignores, letting a flow past its links' capacity
  // (sim/simgrid/simgrid_engine.cc says how it was found); a bound no flow reaches means the same.
  if (simgrid::config::get_value<double>("network/TCP-gamma") <= 0) sg4::Engine::set_config("network/TCP-gamma:1e30");
  const int ranks = placement.sizes().pp, gpus = placement.num_gpus();
  std::vector<RawGpu> raw(gpus);
  const auto inbox = [](int gpu, const char* what) { return sg4::Mailbox::by_name(fmt::format("gpu{}-{}", gpu, what)); };
  for (int gpu = 0; gpu < gpus; ++gpu) {
    const pipegrid::sim::GpuCoordinates at = placement.coordinates(gpu);
    RawGpu& g = raw[gpu];
    g.rank = at.pp;
    g.ranks = ranks;
    g.microbatches = in.schedule.microbatches;
    g.forward_flops = in.costs.flops(pipegrid::Action{at.pp, 0, pipegrid::Kind::F});
    g.backward_flops = in.costs.flops(pipegrid::Action{at.pp, 0, pipegrid::Kind::B});
    g.activation_bytes = in.costs.result_bytes(at.pp, /*backward=*/false);
    g.gradient_bytes = in.costs.result_bytes(at.pp, /*backward=*/true);
    g.activations_in = inbox(gpu, "activations");
    g.gradients_in = inbox(gpu, "gradients");
    if (at.pp + 1 < ranks) g.next_activations = inbox(placement.gpu({at.tp, at.dp, at.pp + 1}), "activations");
    if (at.pp > 0) g.previous_gradients = inbox(placement.gpu({at.tp, at.dp, at.pp - 1}), "gradients");
  }
  for (int gpu = 0; gpu < gpus; ++gpu)
    sg4::Actor::create(fmt::format("gpu{}", gpu), engine.host_by_name(in.platform_gpus[gpu].host),
                       [&g = raw[gpu]] { run_rank(g); });
  engine.run();
  std::cout << fmt::format(
      "raw SimGrid 1F1B: makespan {:.9g} s; SimGrid {:.2f} s wall {:.2f} s CPU; options resolved {:.2f} s wall "
      "{:.2f} s CPU; {} actors, {} execs, {} comms\n",
      sg4::Engine::get_clock(), simulating.wall_since(), simulating.cpu_since(), resolve_wall, resolve_cpu, gpus,
      execs, comms);
  return pipegrid::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const pipegrid::InputError& e) {
    std::cerr << "bench_raw_simgrid_1f1b: error: " << e.what() << '\n';
    return pipegrid::kExitInputError;
  }
}
