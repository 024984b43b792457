#include "hmo/analysis/tight_packing_greedy.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

namespace hmo {

int64_t PlaceBlocksInOrder(const HeapPackingProblem& problem, absl::Span<const int32_t> order,
                           ChunkPlacement placement, std::vector<int64_t>& offsets) {
  std::vector<int64_t> time_points;
  for (const HeapPackingBlock& block : problem.blocks) {
    for (const HeapTimeInterval& lifetime : block.lifetimes) {
      time_points.push_back(lifetime.start);
      time_points.push_back(lifetime.end);
    }
  }
  BestFitPlacer placer(problem.alignment, placement, std::move(time_points));
  offsets.assign(problem.blocks.size(), 0);
  int64_t height = 0;
  for (int32_t b : order) {
    const HeapPackingBlock& block = problem.blocks[b];
    if (block.size == 0) continue;
    const int64_t offset = placer.FindOffset(block.lifetimes, block.size, block.size);
    offsets[b] = offset;
    placer.Commit(block.lifetimes, HeapChunk::FromOffsetSize(offset, block.size));
    height = std::max(height, offset + block.size);
  }
  return height;
}

BlockOrderKeys ComputeBlockOrderKeys(const HeapPackingProblem& problem) {
  const size_t n = problem.blocks.size();
  BlockOrderKeys keys;
  keys.size.resize(n);
  keys.live_steps.resize(n);
  keys.first_start.resize(n);
  keys.last_end.resize(n);
  keys.peak_total.assign(n, 0);
  // Live bytes per time step, over compressed time.
  std::vector<int64_t> points;
  for (size_t b = 0; b < n; ++b) {
    const HeapPackingBlock& block = problem.blocks[b];
    keys.size[b] = block.size;
    int64_t steps = 0;
    int64_t first = block.lifetimes.empty() ? 0 : block.lifetimes[0].start;
    int64_t last = block.lifetimes.empty() ? 0 : block.lifetimes[0].end;
    for (const HeapTimeInterval& lifetime : block.lifetimes) {
      steps += lifetime.end - lifetime.start + 1;
      first = std::min(first, lifetime.start);
      last = std::max(last, lifetime.end);
      points.push_back(lifetime.start);
      points.push_back(lifetime.end + 1);
    }
    keys.live_steps[b] = steps;
    keys.first_start[b] = first;
    keys.last_end[b] = last;
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  auto index_of = [&points](int64_t t) {
    return std::lower_bound(points.begin(), points.end(), t) - points.begin();
  };
  std::vector<int64_t> live(points.size() + 1, 0);
  for (size_t b = 0; b < n; ++b) {
    for (const HeapTimeInterval& lifetime : problem.blocks[b].lifetimes) {
      live[index_of(lifetime.start)] += problem.blocks[b].size;
      live[index_of(lifetime.end + 1)] -= problem.blocks[b].size;
    }
  }
  for (size_t i = 1; i < live.size(); ++i) live[i] += live[i - 1];
  // Range maximum via a sparse table.
  const size_t m = live.size();
  std::vector<std::vector<int64_t>> table = {live};
  for (size_t width = 2; width <= m; width *= 2) {
    const std::vector<int64_t>& prev = table.back();
    std::vector<int64_t> next(m - width + 1);
    for (size_t i = 0; i + width <= m; ++i) next[i] = std::max(prev[i], prev[i + width / 2]);
    table.push_back(std::move(next));
  }
  auto range_max = [&](size_t lo, size_t hi) {  // [lo, hi)
    size_t level = 0;
    while ((size_t{2} << level) <= hi - lo) ++level;
    return std::max(table[level][lo], table[level][hi - (size_t{1} << level)]);
  };
  for (size_t b = 0; b < n; ++b) {
    for (const HeapTimeInterval& lifetime : problem.blocks[b].lifetimes) {
      const size_t lo = index_of(lifetime.start);
      const size_t hi = index_of(lifetime.end + 1);
      if (hi > lo) keys.peak_total[b] = std::max(keys.peak_total[b], range_max(lo, hi));
    }
  }
  return keys;
}

namespace {

template <typename Key>
std::vector<int32_t> SortedBy(size_t n, Key key) {
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&key](int32_t a, int32_t b) { return key(a) > key(b); });
  return order;
}

}  // namespace

std::vector<BlockOrder> TightPackingStartOrders(const BlockOrderKeys& k) {
  const size_t n = k.size.size();
  auto area = [&k](int32_t b) {
    return static_cast<unsigned __int128>(k.size[b]) * static_cast<uint64_t>(k.live_steps[b]);
  };
  std::vector<BlockOrder> orders;
  orders.push_back({"size", SizeOrder(k)});
  orders.push_back({"area", SortedBy(n, [&](int32_t b) {
                      return std::make_tuple(area(b), k.size[b], -b);
                    })});
  orders.push_back({"length", SortedBy(n, [&](int32_t b) {
                      return std::make_tuple(k.live_steps[b], k.size[b], -b);
                    })});
  orders.push_back({"total", SortedBy(n, [&](int32_t b) {
                      return std::make_tuple(k.peak_total[b], area(b), -b);
                    })});
  orders.push_back({"start", SortedBy(n, [&](int32_t b) {
                      return std::make_tuple(-k.first_start[b], k.size[b], -b);
                    })});
  orders.push_back({"end", SortedBy(n, [&](int32_t b) {
                      return std::make_tuple(k.last_end[b], k.size[b], -b);
                    })});
  return orders;
}

std::vector<int32_t> SizeOrder(const BlockOrderKeys& k) {
  return SortedBy(k.size.size(),
                  [&k](int32_t b) { return std::make_tuple(k.size[b], k.live_steps[b], -b); });
}

std::vector<int32_t> SizeClassOrder(const BlockOrderKeys& k, double base) {
  const size_t n = k.size.size();
  const double log_base = std::log(base);
  std::vector<int64_t> size_class(n);
  for (size_t b = 0; b < n; ++b) {
    size_class[b] = k.size[b] <= 0 ? -1
                                   : static_cast<int64_t>(std::floor(
                                         std::log(static_cast<double>(k.size[b])) / log_base));
  }
  return SortedBy(n, [&](int32_t b) {
    return std::make_tuple(size_class[b], k.live_steps[b], k.size[b], -b);
  });
}

std::vector<int32_t> SizeLengthOrder(const BlockOrderKeys& k, double alpha) {
  const size_t n = k.size.size();
  std::vector<double> key(n);
  for (size_t b = 0; b < n; ++b) {
    key[b] = k.size[b] <= 0 ? -1e300
                            : std::log(static_cast<double>(k.size[b])) +
                                  alpha * std::log(static_cast<double>(std::max<int64_t>(
                                              1, k.live_steps[b])));
  }
  return SortedBy(n, [&](int32_t b) { return std::make_tuple(key[b], k.size[b], -b); });
}

std::vector<int32_t> LongLivedFirstOrder(const BlockOrderKeys& k, double fraction) {
  const size_t n = k.size.size();
  int64_t first = 0, last = 0;
  for (size_t b = 0; b < n; ++b) {
    if (b == 0 || k.first_start[b] < first) first = k.first_start[b];
    if (b == 0 || k.last_end[b] > last) last = k.last_end[b];
  }
  const double span = static_cast<double>(last - first + 1);
  return SortedBy(n, [&](int32_t b) {
    const bool long_lived = static_cast<double>(k.live_steps[b]) >= fraction * span;
    return std::make_tuple(long_lived, k.size[b], k.live_steps[b], -b);
  });
}

}  // namespace hmo
