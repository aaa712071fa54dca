#include "sim/exec/link_report.h"

#include <simgrid/s4u/Engine.hpp>
#include <stdexcept>

namespace pipegrid::sim {

namespace {

namespace sg4 = simgrid::s4u;

std::string policy_name(sg4::Link::SharingPolicy policy) {
  switch (policy) {
    case sg4::Link::SharingPolicy::SPLITDUPLEX: return "SPLITDUPLEX";
    case sg4::Link::SharingPolicy::SHARED: return "SHARED";
    case sg4::Link::SharingPolicy::FATPIPE: return "FATPIPE";
    case sg4::Link::SharingPolicy::NONLINEAR: return "NONLINEAR";
    case sg4::Link::SharingPolicy::WIFI: return "WIFI";
  }
  return "?";
}

// A direction of a split-duplex link is the up or down link of the SplitDuplexLink named as it is
// without its suffix (NetZoneImpl::create_split_duplex_link names them NAME_UP and NAME_DOWN); the
// name only says where to look, the SplitDuplexLink's own up and down links decide.
bool is_split_duplex_direction(const sg4::Link* link) {
  const std::string& name = link->get_name();
  for (const std::string suffix : {"_UP", "_DOWN"}) {
    if (!name.ends_with(suffix)) continue;
    try {
      const sg4::SplitDuplexLink* duplex =
          sg4::Engine::get_instance()->split_duplex_link_by_name(name.substr(0, name.size() - suffix.size()));
      return duplex->get_link_up() == link || duplex->get_link_down() == link;
    } catch (const std::invalid_argument&) {
      return false;  // no split-duplex link of that name
    }
  }
  return false;
}

}  // namespace

LinkReport link_report(const LinkUsage& usage, double window, bool timeline) {
  LinkReport report;
  report.name = usage.link->get_name();
  report.bandwidth = usage.bandwidth;
  report.latency = usage.link->get_latency();
  report.sharing_policy =
      is_split_duplex_direction(usage.link) ? "SPLITDUPLEX" : policy_name(usage.link->get_sharing_policy());
  report.bytes = usage.bytes;
  report.analytic_bytes = usage.analytic_bytes;
  report.flows = usage.flows;
  report.window = window;
  report.over_time = usage.over_time;
  if (!usage.over_time) return report;
  // Busy: with a flow on it, or carrying bytes (an analytic collective; a flow's pieces lie inside
  // its busy periods already). The load was folded at the network's window: it must be this one.
  if (window != usage.load.width() || (timeline && !usage.load.timeline()))
    throw std::logic_error("link_report: the links' load was folded at another window, or without the timeline");
  LoadFold::Views views = usage.load.views();
  report.busy_time = views.busy_time;
  report.peak_bytes = views.busiest.bytes;
  report.peak_start = views.busiest.start;
  if (timeline) report.windows = std::move(views.windows);
  return report;
}

}  // namespace pipegrid::sim
