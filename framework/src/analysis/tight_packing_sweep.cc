#include "hmo/analysis/tight_packing_sweep.h"

#include <algorithm>

namespace hmo {

bool BuildTightPackingSweep(const HeapPackingProblem& problem, int64_t max_conflict_pairs,
                            TightPackingSweep& sweep) {
  const int32_t n = static_cast<int32_t>(problem.blocks.size());
  sweep = TightPackingSweep{};
  // Section boundaries: every start and every end + 1.
  std::vector<int64_t> points;
  for (const HeapPackingBlock& block : problem.blocks) {
    if (block.size == 0) continue;
    for (const HeapTimeInterval& lifetime : block.lifetimes) {
      points.push_back(lifetime.start);
      points.push_back(lifetime.end + 1);
    }
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  auto point_index = [&points](int64_t time) {
    return static_cast<int32_t>(std::lower_bound(points.begin(), points.end(), time) -
                                points.begin());
  };
  // Keep the sections that end where some lifetime ends (MiniMalloc's cross
  // sections). Any other section's live set is a subset of the next one's,
  // so every conflict and every bound shows in a kept section.
  const int32_t num_points = static_cast<int32_t>(points.size());
  std::vector<char> ends_at(num_points, 0);
  for (const HeapPackingBlock& block : problem.blocks) {
    if (block.size == 0) continue;
    for (const HeapTimeInterval& lifetime : block.lifetimes) {
      ends_at[point_index(lifetime.end + 1)] = 1;
    }
  }
  // kept_before[p]: the kept sections that begin at a point before p.
  std::vector<int32_t> kept_before(num_points + 1, 0);
  for (int32_t p = 0; p + 1 < num_points; ++p) {
    kept_before[p + 1] = kept_before[p] + (ends_at[p + 1] ? 1 : 0);
  }
  if (num_points > 0) kept_before[num_points] = kept_before[num_points - 1];
  // A lifetime covering the sections between points a and b covers the kept
  // sections [kept_before[a], kept_before[b]); never none (its last section
  // ends where it ends).
  auto index_of = [&](int64_t time) { return kept_before[point_index(time)]; };
  const int32_t num_sections = num_points == 0 ? 0 : kept_before[num_points - 1];
  sweep.section_blocks.assign(num_sections, {});
  sweep.block_sections.assign(n, {});
  std::vector<TightPackingSweep::SectionRange> ranges;
  for (int32_t b = 0; b < n; ++b) {
    const HeapPackingBlock& block = problem.blocks[b];
    if (block.size == 0) continue;
    ranges.clear();
    for (const HeapTimeInterval& lifetime : block.lifetimes) {
      ranges.push_back({index_of(lifetime.start), index_of(lifetime.end + 1)});
    }
    std::sort(ranges.begin(), ranges.end(),
              [](const auto& a, const auto& b) { return a.begin < b.begin; });
    auto& merged = sweep.block_sections[b];
    for (const auto& range : ranges) {
      if (range.begin == range.end) continue;
      if (!merged.empty() && range.begin <= merged.back().end) {
        merged.back().end = std::max(merged.back().end, range.end);
      } else {
        merged.push_back(range);
      }
    }
    for (const auto& range : merged) {
      for (int32_t s = range.begin; s < range.end; ++s) sweep.section_blocks[s].push_back(b);
    }
  }
  sweep.cuts.assign(std::max(0, num_sections - 1), 0);
  std::vector<int32_t> diff(num_sections + 1, 0);
  for (int32_t b = 0; b < n; ++b) {
    if (sweep.block_sections[b].empty()) continue;
    // Boundaries k in [span_begin, span_end - 1) are crossed.
    diff[sweep.span_begin(b)] += 1;
    diff[sweep.span_end(b) - 1] -= 1;
  }
  int32_t running = 0;
  for (int32_t k = 0; k + 1 < num_sections; ++k) {
    running += diff[k];
    sweep.cuts[k] = running;
  }
  // Conflicts through shared sections, deduplicated with a stamp per block.
  sweep.conflicts.assign(n, {});
  std::vector<int32_t> stamp(n, -1);
  for (int32_t b = 0; b < n; ++b) {
    auto& list = sweep.conflicts[b];
    stamp[b] = b;
    for (const auto& range : sweep.block_sections[b]) {
      for (int32_t s = range.begin; s < range.end; ++s) {
        for (int32_t other : sweep.section_blocks[s]) {
          if (stamp[other] == b) continue;
          stamp[other] = b;
          list.push_back(other);
        }
      }
    }
    std::sort(list.begin(), list.end());
    sweep.conflict_pairs += static_cast<int64_t>(list.size());
    if (sweep.conflict_pairs / 2 > max_conflict_pairs) return false;
  }
  sweep.conflict_pairs /= 2;
  std::vector<int64_t> covered(n, 0);
  for (int32_t b = 0; b < n; ++b) {
    for (const auto& range : sweep.block_sections[b]) covered[b] += range.end - range.begin;
  }
  for (int32_t b = 0; b < n; ++b) {
    for (int32_t other : sweep.conflicts[b]) sweep.dive_work += covered[other];
  }
  return true;
}

}  // namespace hmo
