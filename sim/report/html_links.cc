#include "sim/report/html_links.h"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <tuple>
#include <vector>

#include "common/input_error.h"
#include "sim/report/csv_reader.h"
#include "sim/report/html_text.h"

namespace pipegrid::report {

namespace {

struct Link {
  std::string name, link_class, direction;
  double bandwidth, latency, bytes, analytic_bytes, flows, busy, mean_busy, peak;
};

// Busiest first: the fullest window, then the fullest busy time, then bytes; the name and direction
// break ties, so that the order is the file's content's alone.
bool busier(const Link& a, const Link& b) {
  return std::tie(b.peak, b.mean_busy, b.bytes, b.busy, a.name, a.direction) <
         std::tie(a.peak, a.mean_busy, a.bytes, a.busy, b.name, b.direction);
}

}  // namespace

std::string links_html(const std::string& path, const std::string& name, std::size_t top) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot be read", name));
  CsvReader csv(in, name);
  const std::size_t link = csv.require("link"), cls = csv.require("class"), bw = csv.require("bandwidth"),
                    lat = csv.require("latency"), bytes = csv.require("bytes"), flows = csv.require("flows"),
                    busy = csv.require("busy_time"), mean_busy = csv.require("mean_utilization_busy"),
                    peak = csv.require("peak_utilization"), analytic = csv.require("analytic_bytes");
  const auto direction = csv.column("direction");
  std::vector<Link> links;
  std::size_t total = 0;
  while (csv.next()) {
    ++total;
    links.push_back({std::string(csv.field(link)), std::string(csv.field(cls)),
                     direction ? std::string(csv.field(*direction)) : "", csv.number(bw), csv.number(lat),
                     csv.number(bytes), csv.number(analytic), csv.number(flows), csv.number(busy),
                     csv.number(mean_busy), csv.number(peak)});
    // Keep the top ones only: a platform of thousands of links need not sit in memory.
    if (links.size() >= 4 * top + 64) {
      std::partial_sort(links.begin(), links.begin() + static_cast<long>(top), links.end(), busier);
      links.resize(top);
    }
  }
  std::sort(links.begin(), links.end(), busier);
  if (links.size() > top) links.resize(top);
  if (links.empty()) return "<p class=\"note\">links.csv lists no links.</p>\n";
  const std::string order = "by the fullest window (peak utilisation), then utilisation while busy, then bytes";
  std::string out = total > top ? fmt::format("<p class=\"note\">The {} busiest of {} links (one row per link and "
                                              "direction), {}.</p>\n",
                                              links.size(), total, order)
                                : fmt::format("<p class=\"note\">All {} links (one row per link and direction), {}.</p>\n",
                                              total, order);
  out += "<table class=\"links\">\n<thead><tr><th>link</th><th>class</th><th>direction</th><th>bandwidth</th>"
         "<th>latency (s)</th><th>bytes</th><th>of which analytic</th><th>flows</th><th>busy (s)</th>"
         "<th>utilisation while busy</th><th class=\"wide\">peak utilisation</th></tr></thead>\n<tbody>\n";
  for (const Link& l : links)
    out += fmt::format("<tr><td>{}</td><td class=\"t\">{}</td><td class=\"t\">{}</td><td>{}/s</td><td>{}</td><td>{}</td>"
                       "<td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                       "<td class=\"wide\"><div class=\"meter\"><i style=\"width:{:.1f}%\"></i></div>{}</td></tr>\n",
                       escape(l.name), escape(l.link_class), escape(l.direction), bytes_text(l.bandwidth),
                       short_number(l.latency), bytes_text(l.bytes), bytes_text(l.analytic_bytes), short_number(l.flows),
                       short_number(l.busy), percent_text(l.mean_busy), 100 * std::clamp(l.peak, 0.0, 1.0),
                       percent_text(l.peak));
  return out + "</tbody>\n</table>\n";
}

}  // namespace pipegrid::report
