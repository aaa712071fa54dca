#include "schedules/dependency_graph.h"

#include <algorithm>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/topological_sort.hpp>
#include <limits>
#include <optional>

#include "schedules/results.h"

namespace pipegrid {

namespace {

using Vertex = std::uint32_t;
using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                                 boost::no_property, Vertex, Vertex>;
using Edge = boost::graph_traits<Graph>::edge_descriptor;
constexpr Vertex kNoVertex = std::numeric_limits<Vertex>::max();

// Records the DFS tree and the first back edge; a back edge closes a cycle through the tree path.
struct CycleVisitor : boost::default_dfs_visitor {
  std::vector<Vertex>* parent;
  std::optional<std::pair<Vertex, Vertex>>* back;
  void tree_edge(Edge e, const Graph& g) const { (*parent)[boost::target(e, g)] = boost::source(e, g); }
  void back_edge(Edge e, const Graph& g) const {
    if (!*back) *back = {boost::source(e, g), boost::target(e, g)};
  }
};

}  // namespace

struct DependencyGraph::Impl {
  const Schedule* schedule;
  std::vector<std::size_t> first_vertex;  // of each rank, plus the total at the end
  std::vector<int> rank_of_vertex;
  Graph graph;

  const Op& op(Vertex v) const {
    const int rank = rank_of_vertex[v];
    return schedule->programs[rank][v - first_vertex[rank]];
  }
};

DependencyGraph::DependencyGraph(const Schedule& schedule) : impl_(std::make_unique<Impl>()) {
  Impl& g = *impl_;
  g.schedule = &schedule;
  g.first_vertex.assign(schedule.ranks + 1, 0);
  for (int r = 0; r < schedule.ranks; ++r) g.first_vertex[r + 1] = g.first_vertex[r] + schedule.programs[r].size();
  const std::size_t n = g.first_vertex.back();
  g.rank_of_vertex.resize(n);
  for (int r = 0; r < schedule.ranks; ++r)
    std::fill(g.rank_of_vertex.begin() + static_cast<std::ptrdiff_t>(g.first_vertex[r]),
              g.rank_of_vertex.begin() + static_cast<std::ptrdiff_t>(g.first_vertex[r + 1]), r);

  const ResultIndex index(schedule.num_stages(), schedule.microbatches);
  std::vector<Vertex> producer(index.size(), kNoVertex);
  for (Vertex v = 0; v < n; ++v) {
    const Op& op = g.op(v);
    for (int i = 0; i < op.size(); ++i)
      if (const auto out = output_of(op[i])) producer[index(*out)] = v;
  }
  std::vector<std::pair<Vertex, Vertex>> edges;
  edges.reserve(2 * n);
  for (Vertex v = 0; v < n; ++v) {
    if (v > g.first_vertex[g.rank_of_vertex[v]]) edges.emplace_back(v - 1, v);
    const Op& op = g.op(v);
    for (int i = 0; i < op.size(); ++i)
      if (const auto in = input_of(schedule.layout, op[i])) edges.emplace_back(producer[index(*in)], v);
  }
  g.graph = Graph(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(), static_cast<Vertex>(n));
}

DependencyGraph::~DependencyGraph() = default;

std::size_t DependencyGraph::num_ops() const { return boost::num_vertices(impl_->graph); }
std::size_t DependencyGraph::num_dependencies() const { return boost::num_edges(impl_->graph); }

OpRef DependencyGraph::op(std::size_t vertex) const {
  const int rank = impl_->rank_of_vertex[vertex];
  return {rank, vertex - impl_->first_vertex[rank]};
}

std::vector<OpRef> DependencyGraph::find_cycle() const {
  const Graph& graph = impl_->graph;
  std::vector<Vertex> parent(num_ops(), kNoVertex);
  std::optional<std::pair<Vertex, Vertex>> back;
  CycleVisitor visitor;
  visitor.parent = &parent;
  visitor.back = &back;
  std::vector<boost::default_color_type> colors(num_ops());
  boost::depth_first_search(graph, boost::visitor(visitor).color_map(boost::make_iterator_property_map(
                                       colors.begin(), boost::get(boost::vertex_index, graph))));
  if (!back) return {};
  // The back edge u → v returns to v, an ancestor of u: the tree path v → … → u closes the cycle.
  std::vector<OpRef> cycle;
  for (Vertex v = back->first;; v = parent[v]) {
    cycle.push_back(op(v));
    if (v == back->second) break;
  }
  std::reverse(cycle.begin(), cycle.end());
  return cycle;
}

double DependencyGraph::critical_path_length(const ActionTimes& times, double p2p_latency) const {
  const Graph& graph = impl_->graph;
  std::vector<Vertex> reverse_order;
  reverse_order.reserve(num_ops());
  boost::topological_sort(graph, std::back_inserter(reverse_order));
  std::vector<double> start(num_ops(), 0);
  double longest = 0;
  for (auto it = reverse_order.rbegin(); it != reverse_order.rend(); ++it) {
    const Vertex v = *it;
    const double end = start[v] + times.of(impl_->op(v));
    longest = std::max(longest, end);
    for (auto [e, last] = boost::out_edges(v, graph); e != last; ++e) {
      const Vertex w = boost::target(*e, graph);
      const double latency = impl_->rank_of_vertex[w] != impl_->rank_of_vertex[v] ? p2p_latency : 0;
      start[w] = std::max(start[w], end + latency);
    }
  }
  return longest;
}

}  // namespace pipegrid
