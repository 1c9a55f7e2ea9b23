//===- ArenaPlanner.cpp - liveness-based arena offsets --------------------===//
//
// First-fit over the order buffers become live. Optimal packing is NP-hard
// and first-fit in program order is what training-graph planners (XLA's
// heap simulator, TVM's storage rewrite) start from; for the chains of
// transformer layers it reuses a few activation-sized slots over and over.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/ArenaPlanner.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <queue>

using namespace tfc;

namespace {
/// The byte range [begin, end) a placed buffer occupies.
struct Extent {
  int64_t begin;
  int64_t end;
};

bool fail(std::string *error, const std::string &message) {
  if (error)
    *error = message;
  return false;
}

/// `value` rounded up to a multiple of `alignment` (a power of two), or
/// false on overflow.
bool alignUp(int64_t value, int64_t alignment, int64_t &result) {
  int64_t bumped;
  if (__builtin_add_overflow(value, alignment - 1, &bumped))
    return false;
  result = bumped & ~(alignment - 1);
  return true;
}

} // namespace

std::optional<ArenaPlan>
tfc::planArena(const std::vector<int64_t> &sizes,
               const std::vector<BufferLifetime> &lifetimes, int64_t alignment,
               std::string *error) {
  if (sizes.size() != lifetimes.size()) {
    fail(error, "planArena: " + std::to_string(sizes.size()) + " sizes but " +
                    std::to_string(lifetimes.size()) + " lifetimes");
    return std::nullopt;
  }
  if (alignment <= 0 || (alignment & (alignment - 1)) != 0) {
    fail(error, "planArena: alignment " + std::to_string(alignment) +
                    " is not a positive power of two");
    return std::nullopt;
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0) {
      fail(error, "planArena: buffer " + std::to_string(i) +
                      " has negative size " + std::to_string(sizes[i]));
      return std::nullopt;
    }
    if (lifetimes[i].first > lifetimes[i].last) {
      fail(error, "planArena: buffer " + std::to_string(i) + " has lifetime [" +
                      std::to_string(lifetimes[i].first) + ", " +
                      std::to_string(lifetimes[i].last) +
                      "] that ends before it begins");
      return std::nullopt;
    }
  }

  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return lifetimes[a].first < lifetimes[b].first;
  });

  ArenaPlan plan;
  plan.offsets.assign(sizes.size(), 0);
  // The placed buffers still live, by offset, and when each dies. Buffers
  // are placed in the order they become live, so a placed buffer's
  // lifetime intersects this one's exactly when it has not ended before
  // this one begins; one that has ended never matters again. (Scanning
  // every placed buffer and sorting the overlapping ones per buffer made a
  // step with thousands of buffers quadratic.)
  std::map<int64_t, Extent> live;
  using Death = std::pair<int64_t, int64_t>; // (last step, offset)
  std::priority_queue<Death, std::vector<Death>, std::greater<Death>> deaths;
  int64_t end = 0;
  for (size_t buffer : order) {
    if (sizes[buffer] == 0)
      continue;
    while (!deaths.empty() && deaths.top().first < lifetimes[buffer].first) {
      live.erase(deaths.top().second);
      deaths.pop();
    }
    // The byte ranges this buffer must avoid, by increasing start (live
    // buffers never share bytes, so their starts differ).
    int64_t candidate = 0;
    for (const auto &[begin, extent] : live) {
      int64_t candidateEnd;
      if (__builtin_add_overflow(candidate, sizes[buffer], &candidateEnd))
        break; // Reported below.
      if (candidateEnd <= extent.begin)
        break;
      int64_t next;
      if (!alignUp(extent.end, alignment, next)) {
        fail(error, "planArena: the arena would exceed INT64_MAX bytes");
        return std::nullopt;
      }
      candidate = std::max(candidate, next);
    }
    int64_t bufferEnd;
    if (__builtin_add_overflow(candidate, sizes[buffer], &bufferEnd)) {
      fail(error, "planArena: the arena would exceed INT64_MAX bytes");
      return std::nullopt;
    }
    plan.offsets[buffer] = candidate;
    end = std::max(end, bufferEnd);
    live[candidate] = {candidate, bufferEnd};
    deaths.push({lifetimes[buffer].last, candidate});
  }
  if (!alignUp(end, alignment, plan.size)) {
    fail(error, "planArena: the arena would exceed INT64_MAX bytes");
    return std::nullopt;
  }
  return plan;
}
