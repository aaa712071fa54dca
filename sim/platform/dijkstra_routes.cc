#include "sim/platform/dijkstra_routes.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <functional>
#include <utility>

namespace pipegrid::platform {

namespace {

bool is_dijkstra(const std::string& routing) {
  std::string lower = routing;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower == "dijkstra" || lower == "dijkstracache";
}

// SimGrid's name of a link as a route crosses it, one way or back (NetZoneImpl::get_link_list_impl:
// on the way back UP is the DOWN link and DOWN the UP one).
std::string simgrid_name(const LinkUse& use, bool back) {
  if (use.direction == "UP") return use.link + (back ? "_DOWN" : "_UP");
  if (use.direction == "DOWN") return use.link + (back ? "_UP" : "_DOWN");
  return use.link;
}

// Sorts node indices below `n` in place: least significant digit first, 11 bits a pass (two passes
// below 4 million nodes). A bucket of a large platform's search holds thousands of GPUs; comparison
// sorts spent most of the search there.
void sort_indices(std::vector<int>& v, std::size_t n, std::vector<int>& scratch) {
  constexpr int kBits = 11;
  constexpr std::size_t kDigits = std::size_t{1} << kBits;
  scratch.resize(v.size());
  for (int shift = 0; (n - 1) >> shift > 0 || shift == 0; shift += kBits) {
    std::size_t count[kDigits + 1] = {};
    for (const int x : v) ++count[((static_cast<std::size_t>(x) >> shift) & (kDigits - 1)) + 1];
    for (std::size_t d = 0; d < kDigits; ++d) count[d + 1] += count[d];
    for (const int x : v) scratch[count[(static_cast<std::size_t>(x) >> shift) & (kDigits - 1)]++] = x;
    v.swap(scratch);
  }
}

}  // namespace

std::shared_ptr<const DijkstraRoutes> DijkstraRoutes::of(const PlatformFacts& facts) {
  if (!facts.routes_declared || facts.zones.size() != 1 || !is_dijkstra(facts.zones.front().routing)) return nullptr;
  auto routes = std::make_shared<DijkstraRoutes>();
  for (const RouteFacts& route : facts.routes) {
    if (!route.symmetrical || route.src == route.dst) return nullptr;
    // DijkstraZone::add_route: new_edge(src, dst), creating src then dst, then the way back.
    const int src = routes->add_node(route.src), dst = routes->add_node(route.dst);
    std::vector<std::string> way, back;
    for (const LinkUse& use : route.links) way.push_back(simgrid_name(use, false));
    for (auto it = route.links.rbegin(); it != route.links.rend(); ++it) back.push_back(simgrid_name(*it, true));
    routes->add_edge(src, dst, std::move(way));
    routes->add_edge(dst, src, std::move(back));
  }
  routes->flatten();
  return routes;
}

int DijkstraRoutes::add_node(const std::string& name) {
  const auto [it, added] = index_.try_emplace(name, static_cast<int>(names_.size()));
  if (added) {
    names_.push_back(name);
    out_.emplace_back();
  }
  return it->second;
}

void DijkstraRoutes::add_edge(int from, int to, std::vector<std::string> links) {
  out_[from].push_back(static_cast<int>(edges_.size()));
  const auto cost = static_cast<unsigned long>(links.size());
  zero_cost_edges_ = zero_cost_edges_ || cost == 0;
  edges_.push_back({from, to, cost, std::move(links)});
}

void DijkstraRoutes::flatten() {
  first_.assign(1, 0);
  for (const std::vector<int>& edges : out_) {
    for (int e : edges) {
      out_edge_.push_back(e);
      out_target_.push_back(edges_[static_cast<std::size_t>(e)].target);
      out_cost_.push_back(edges_[static_cast<std::size_t>(e)].cost);
    }
    first_.push_back(static_cast<int>(out_edge_.size()));
  }
}

const std::vector<int>& DijkstraRoutes::reached_by(int src) const {
  if (const auto it = reached_by_.find(src); it != reached_by_.end()) return it->second;
  // DijkstraZone::get_local_route's search: queue entries (cost as a double, node) popped smallest
  // first, a strict < to take a predecessor, out-edges in the order they were added. SimGrid also
  // queues every node at ULONG_MAX at the start and relaxes stale entries again; neither changes a
  // route to a node the source reaches (those entries pop after every finite one, and a stale
  // entry's relaxations were made already with the same costs), so both are skipped here. (A node
  // left at ULONG_MAX would, in 3.32, add to it and wrap: on a graph of symmetrical routes that only
  // touches nodes the source cannot reach either.)
  // Costs are whole numbers of links, so the queue is a bucket per cost, emptied in node order:
  // (cost, node) pops as the pairs' queue pops them. Every edge costs at least a link, so a bucket is
  // full before it is emptied and sorting it is enough; an edge of no link would add to the bucket
  // being emptied, and such a graph keeps each bucket a min-heap instead.
  const std::size_t n = names_.size();
  cost_.assign(n, ULONG_MAX);
  for (std::vector<int>& bucket : buckets_) bucket.clear();
  std::vector<int> by(n, -1);
  cost_[static_cast<std::size_t>(src)] = 0;
  if (buckets_.empty()) buckets_.emplace_back();
  buckets_[0].push_back(src);
  const auto relax = [&](int v, std::size_t level) {
    for (int i = first_[v]; i < first_[v + 1]; ++i) {
      const auto u = static_cast<std::size_t>(out_target_[static_cast<std::size_t>(i)]);
      const unsigned long through = out_cost_[static_cast<std::size_t>(i)] + level;
      if (through >= cost_[u]) continue;
      by[u] = out_edge_[static_cast<std::size_t>(i)];
      cost_[u] = through;
      if (through >= buckets_.size()) buckets_.resize(through + 1);
      buckets_[through].push_back(static_cast<int>(u));
      if (through == level) std::push_heap(buckets_[level].begin(), buckets_[level].end(), std::greater<>());
    }
  };
  for (std::size_t level = 0; level < buckets_.size(); ++level) {
    if (!zero_cost_edges_) {
      std::vector<int> bucket = std::move(buckets_[level]);  // relax only adds to later buckets
      if (bucket.size() > 64) sort_indices(bucket, n, sort_scratch_);
      else std::sort(bucket.begin(), bucket.end());
      for (const int v : bucket)
        if (cost_[static_cast<std::size_t>(v)] == level) relax(v, level);  // else stale: reached more cheaply since
      bucket.clear();
      buckets_[level] = std::move(bucket);  // keep its capacity for the next source
      continue;
    }
    // Indexed, not held: growing buckets_ moves the bucket being emptied.
    std::make_heap(buckets_[level].begin(), buckets_[level].end(), std::greater<>());
    while (!buckets_[level].empty()) {
      std::pop_heap(buckets_[level].begin(), buckets_[level].end(), std::greater<>());
      const int v = buckets_[level].back();
      buckets_[level].pop_back();
      if (cost_[static_cast<std::size_t>(v)] == level) relax(v, level);
    }
  }
  return reached_by_.emplace(src, std::move(by)).first->second;
}

std::optional<std::vector<DijkstraRoutes::Hop>> DijkstraRoutes::hops_back(std::string_view src,
                                                                          std::string_view dst) const {
  const auto a = index_.find(std::string(src)), b = index_.find(std::string(dst));
  if (a == index_.end() || b == index_.end() || a->second == b->second) return std::nullopt;
  const std::vector<int>& by = reached_by(a->second);
  std::vector<Hop> hops;
  for (int v = b->second; v != a->second;) {
    const int e = by[static_cast<std::size_t>(v)];
    if (e < 0) return std::nullopt;
    hops.push_back(&edges_[static_cast<std::size_t>(e)].links);
    v = edges_[static_cast<std::size_t>(e)].source;
  }
  return hops;
}

std::vector<std::string> DijkstraRoutes::links_of(const std::vector<Hop>& hops_back) {
  // insert_link_latency: each hop, from the destination back, goes to the front of the list reversed.
  std::vector<std::string> links;
  for (auto hop = hops_back.rbegin(); hop != hops_back.rend(); ++hop) links.insert(links.end(), (*hop)->rbegin(), (*hop)->rend());
  return links;
}

}  // namespace pipegrid::platform
