//===- MinCut.h - minimum s-t cut of a small flow network -------*- C++ -*-===//
//
// Dinic's max-flow, for --tfc-recompute's choice of what to save: nodes are
// dense indices, capacities bytes (kInfinite for edges that must not be
// cut). Deterministic: the result depends only on the order edges were
// added.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_TRAINING_MINCUT_H
#define TFC_PASSES_TRAINING_MINCUT_H

#include <cstdint>
#include <limits>
#include <vector>

namespace tfc {

class FlowNetwork {
public:
  static constexpr int64_t kInfinite = std::numeric_limits<int64_t>::max() / 4;

  explicit FlowNetwork(int nodes) : adjacency(nodes) {}
  int addNode() {
    adjacency.emplace_back();
    return int(adjacency.size()) - 1;
  }
  void addEdge(int from, int to, int64_t capacity);

  /// The maximum flow from `source` to `sink` (the minimum cut's capacity,
  /// saturating at kInfinite).
  int64_t maxFlow(int source, int sink);
  /// After maxFlow: whether `node` is on the source side of the minimum
  /// cut closest to the source (reachable in the residual network).
  std::vector<bool> sourceSide(int source) const;
  /// After maxFlow: whether `node` can reach `sink` in the residual network
  /// (the sink side of the minimum cut closest to the sink).
  std::vector<bool> sinkSide(int sink) const;

private:
  struct Edge {
    int to;
    int64_t capacity;
  };
  bool levels(int source, int sink);
  int64_t push(int node, int sink, int64_t flow);

  std::vector<Edge> edges; ///< edge i and i ^ 1 are each other's reverse
  std::vector<std::vector<int>> adjacency;
  std::vector<int> level, next;
};

} // namespace tfc

#endif // TFC_PASSES_TRAINING_MINCUT_H
