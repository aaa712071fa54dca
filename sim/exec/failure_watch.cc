#include "sim/exec/failure_watch.h"

#include <algorithm>
#include <fmt/format.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

namespace {

// SimGrid's signals cannot be disconnected: connected once per process, forwarded to the watch of the
// simulation running, if any (one engine per process).
FailureWatch* current_watch = nullptr;

// The cut list of the one line: its first few entries, then how many more.
constexpr std::size_t kCutsInLine = 4;

}  // namespace

FailureWatch::FailureWatch(const JobPlan& plan, const GpuHosts& gpus, const JobRecord& record, Network& network,
                           Transfers& transfers, std::map<std::string, std::vector<double>> link_up_dates)
    : plan_(plan),
      gpus_(gpus),
      record_(record),
      network_(network),
      transfers_(transfers),
      link_up_dates_(std::move(link_up_dates)) {
  static const bool connected = [] {
    sg4::Host::on_state_change_cb([](const sg4::Host& host) {
      if (current_watch && !host.is_on()) current_watch->host_turned_off(host);
    });
    sg4::Link::on_state_change_cb([](const sg4::Link& link) {
      if (current_watch && !link.is_on()) current_watch->link_down_since_[link.get_name()] = sg4::Engine::get_clock();
    });
    return true;
  }();
  (void)connected;
  current_watch = this;
  // Only links with a state profile go down; without one, no flow pays for the check (Network).
  if (!link_up_dates_.empty())
    network_.on_flow_failed([this](const FlowInfo& flow, const std::vector<int>& route) { flow_failed(flow, route); });
}

FailureWatch::~FailureWatch() {
  if (current_watch == this) current_watch = nullptr;
}

std::string FailureWatch::op_text(int gpu) const {
  const GpuAccount& account = record_.accounts[gpu];
  if (account.finished) return "finished";
  const std::vector<Op>& program = plan_.schedule.programs[plan_.placement.coordinates(gpu).pp];
  if (account.position >= program.size())
    return fmt::format("past its ops, in step {}'s gradient reduction or optimizer", account.step_ends.size());
  std::string text;
  const Op& op = program[account.position];
  for (int i = 0; i < op.size(); ++i)
    text += fmt::format("{}{} s{} m{}", i ? "+" : "", kind_letter(op[i].kind), op[i].stage, op[i].microbatch);
  return fmt::format("{} {} (step {})", account.computing ? "computing" : "waiting at", text,
                     account.step_ends.size());
}

std::string FailureWatch::flow_text(const FlowInfo& flow) const {
  const std::string result =
      flow.stage >= 0 ? fmt::format(" {} s{} m{}", flow.backward ? "backward" : "forward", flow.stage, flow.microbatch)
                      : "";
  return fmt::format("{}{} gpu{}->gpu{} (gpu{} {}; gpu{} {})", flow_kind_name(flow.kind), result, flow.src_gpu,
                     flow.dst_gpu, flow.src_gpu, op_text(flow.src_gpu), flow.dst_gpu, op_text(flow.dst_gpu));
}

void FailureWatch::host_turned_off(const sg4::Host& host) {
  // SimGrid has killed the host's actors already; only a host of the job's GPUs ends it.
  for (int g = 0; g < static_cast<int>(gpus_.hosts.size()); ++g)
    if (gpus_.hosts[g] == &host) {
      fail(host.get_name(), "host", fmt::format("gpu{} {}", g, op_text(g)));
      return;
    }
}

void FailureWatch::notice_resources_off_at_start() {
  const double now = sg4::Engine::get_clock();
  for (const auto& [name, up_dates] : link_up_dates_)
    if (const sg4::Link* link = sg4::Link::by_name_or_null(name); link && !link->is_on())
      link_down_since_.try_emplace(name, now);
  for (const sg4::Host* host : gpus_.hosts)
    if (!host->is_on()) {
      host_turned_off(*host);
      return;
    }
}

sg4::Link* FailureWatch::down_link(const std::vector<int>& route) const {
  for (int index : route)
    if (sg4::Link* link = network_.links()[index].link; !link->is_on()) return link;
  return nullptr;
}

void FailureWatch::flow_failed(const FlowInfo& flow, const std::vector<int>& route) {
  const sg4::Link* link = down_link(route);
  const std::string name = link ? link->get_name() : "?";
  if (failure_) {  // the other flows the same failure cut
    if (failure_->resource == name && failure_->time == sg4::Engine::get_clock()) failure_->cut.push_back(flow_text(flow));
    return;
  }
  if (plan_.options.on_failure == OnFailure::Fail || !link) {
    fail(name, "link", flow_text(flow));
    return;
  }
  resend_when_up(flow, route);
}

// An actor that sleeps until every link of the route is on again, then resends the flow. Sleeping is
// what lets SimGrid reach the link's next state event: with every actor blocked and no activity left it
// would end the run as a deadlock without applying the profile (EngineImpl::solve).
void FailureWatch::resend_when_up(FlowInfo flow, std::vector<int> route) {
  const std::string name = fmt::format("resend-gpu{}-gpu{}-{}", flow.src_gpu, flow.dst_gpu, flow.tag);
  sg4::Actor::create(name, gpus_.hosts[flow.src_gpu], [this, flow, route] {
    while (const sg4::Link* link = down_link(route)) {
      const auto dates = link_up_dates_.find(link->get_name());
      const double now = sg4::Engine::get_clock();
      const auto up = dates == link_up_dates_.end()
                          ? std::vector<double>::const_iterator{}
                          : std::upper_bound(dates->second.begin(), dates->second.end(), now);
      if (dates == link_up_dates_.end() || up == dates->second.end()) {
        fail(link->get_name(), "link", flow_text(flow), /*never_back=*/true);
        return;
      }
      sg4::this_actor::sleep_until(*up);
    }
    transfers_.resend(flow);
  });
}

void FailureWatch::fail(const std::string& resource, const std::string& kind, std::string cut, bool never_back) {
  if (failure_) return;
  PlatformFailure& f = failure_.emplace();
  f.resource = resource;
  f.kind = kind;
  f.time = sg4::Engine::get_clock();
  const auto down = link_down_since_.find(resource);
  f.down_since = kind == "link" && down != link_down_since_.end() ? down->second : f.time;
  f.never_back = never_back;
  f.cut.push_back(std::move(cut));
  f.gpus = nlohmann::json::array();
  for (int g = 0; g < static_cast<int>(gpus_.hosts.size()); ++g) {
    const GpuAccount& account = record_.accounts[g];
    const GpuCoordinates& c = plan_.placement.coordinates(g);
    f.gpus.push_back({{"gpu", g},
                      {"host", gpus_.hosts[g]->get_name()},
                      {"tp", c.tp},
                      {"dp", c.dp},
                      {"pp", c.pp},
                      {"steps_done", account.step_ends.size()},
                      {"op_position", account.position},
                      {"state", op_text(g)}});
  }
  // Nothing of the job outlives its failure: flows still on the wire end unheard, every actor dies
  // (the ones on a failed host are dead already).
  network_.stop();
  sg4::Actor::kill_all();
  // From an actor (a flow that started over a link that was down, a resend that found it never comes
  // back), that actor ends too.
  if (!sg4::Actor::is_maestro()) sg4::this_actor::exit();
}

std::string PlatformFailure::line() const {
  std::string list;
  for (std::size_t i = 0; i < std::min(cut.size(), kCutsInLine); ++i) list += (i ? "; " : "") + cut[i];
  if (cut.size() > kCutsInLine) list += fmt::format("; and {} more", cut.size() - kCutsInLine);
  const std::string when = down_since < time ? fmt::format("at t={:.9g} s, the job failed at t={:.9g} s", down_since, time)
                                              : fmt::format("at t={:.9g} s", time);
  return fmt::format("platform failure: {} {} went down {}{}; cut: {}", kind, resource, when,
                     never_back ? " (it never comes back on: --on-failure wait cannot wait)" : "", list);
}

nlohmann::json PlatformFailure::to_json() const {
  return {{"resource", resource}, {"kind", kind}, {"down_since", down_since}, {"time", time},
          {"never_back", never_back}, {"cut", cut}, {"gpus", gpus}};
}

}  // namespace pipegrid::sim
