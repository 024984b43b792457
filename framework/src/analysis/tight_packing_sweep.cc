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
  auto index_of = [&points](int64_t time) {
    return static_cast<int32_t>(std::lower_bound(points.begin(), points.end(), time) -
                                points.begin());
  };
  const int32_t num_sections = points.empty() ? 0 : static_cast<int32_t>(points.size()) - 1;
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
  // Drop sections no block covers? They are kept (empty) so indices stay
  // simple; an empty section is a natural cut.
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
  return true;
}

}  // namespace hmo
