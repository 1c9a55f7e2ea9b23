//===- MinCut.cpp - Dinic's max-flow and the minimum cut ------------------===//

#include "passes/training/MinCut.h"

#include <algorithm>
#include <queue>

using namespace tfc;

void FlowNetwork::addEdge(int from, int to, int64_t capacity) {
  adjacency[from].push_back(int(edges.size()));
  edges.push_back({to, capacity});
  adjacency[to].push_back(int(edges.size()));
  edges.push_back({from, 0});
}

bool FlowNetwork::levels(int source, int sink) {
  level.assign(adjacency.size(), -1);
  std::queue<int> queue;
  level[source] = 0;
  queue.push(source);
  while (!queue.empty()) {
    int node = queue.front();
    queue.pop();
    for (int e : adjacency[node])
      if (edges[e].capacity > 0 && level[edges[e].to] < 0) {
        level[edges[e].to] = level[node] + 1;
        queue.push(edges[e].to);
      }
  }
  return level[sink] >= 0;
}

int64_t FlowNetwork::push(int node, int sink, int64_t flow) {
  if (node == sink)
    return flow;
  for (int &i = next[node]; i < int(adjacency[node].size()); ++i) {
    int e = adjacency[node][i];
    Edge &edge = edges[e];
    if (edge.capacity <= 0 || level[edge.to] != level[node] + 1)
      continue;
    int64_t pushed = push(edge.to, sink, std::min(flow, edge.capacity));
    if (pushed > 0) {
      edge.capacity -= pushed;
      edges[e ^ 1].capacity += pushed;
      return pushed;
    }
  }
  return 0;
}

int64_t FlowNetwork::maxFlow(int source, int sink) {
  int64_t total = 0;
  while (levels(source, sink)) {
    next.assign(adjacency.size(), 0);
    while (int64_t pushed = push(source, sink, kInfinite)) {
      total += pushed;
      if (total >= kInfinite)
        return kInfinite;
    }
  }
  return total;
}

std::vector<bool> FlowNetwork::sourceSide(int source) const {
  std::vector<bool> seen(adjacency.size(), false);
  std::vector<int> stack = {source};
  seen[source] = true;
  while (!stack.empty()) {
    int node = stack.back();
    stack.pop_back();
    for (int e : adjacency[node])
      if (edges[e].capacity > 0 && !seen[edges[e].to]) {
        seen[edges[e].to] = true;
        stack.push_back(edges[e].to);
      }
  }
  return seen;
}

std::vector<bool> FlowNetwork::sinkSide(int sink) const {
  // Edge e runs from edges[e ^ 1].to to edges[e].to; a node reaches the sink
  // when one of its edges with capacity left leads to a node that does.
  std::vector<bool> seen(adjacency.size(), false);
  std::vector<int> stack = {sink};
  seen[sink] = true;
  while (!stack.empty()) {
    int node = stack.back();
    stack.pop_back();
    for (int e : adjacency[node]) {
      int from = edges[e].to; // edge e ^ 1 runs from `from` to `node`
      if (edges[e ^ 1].capacity > 0 && !seen[from]) {
        seen[from] = true;
        stack.push_back(from);
      }
    }
  }
  return seen;
}
