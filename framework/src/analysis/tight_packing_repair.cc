#include "hmo/analysis/tight_packing_repair.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "hmo/analysis/heap_block_time_index.h"

namespace hmo {
namespace {

class PeakRepairer {
 public:
  // Larger ruins cost too much per attempt.
  static constexpr size_t kMaxRuined = 512;

  PeakRepairer(const HeapPackingProblem& problem, std::vector<int64_t>& offsets,
               std::mt19937_64& rng)
      : problem_(problem),
        offsets_(offsets),
        rng_(rng),
        index_(problem),
        stamp_(problem.blocks.size(), 0),
        moving_(problem.blocks.size(), 0) {}

  int64_t Height() const { return HeapPackingHeight(problem_, offsets_); }

  // Tries to bring every block at or below `target`; applies and returns true
  // on success.
  bool Attempt(int64_t target, int variant) {
    std::vector<int32_t> top;
    int64_t top_size = 0;
    for (int32_t b = 0; b < static_cast<int32_t>(problem_.blocks.size()); ++b) {
      const int64_t size = problem_.blocks[b].size;
      if (size > 0 && offsets_[b] + size > target) {
        if (size > target) return false;  // cannot fit at all
        top.push_back(b);
        top_size = std::max(top_size, size);
      }
    }
    if (top.empty()) return true;
    const std::vector<int32_t> neighbours = Conflicts(top);
    // Ruin bands: just the top blocks, then the conflicting blocks reaching
    // above target - band.
    const int64_t height = target + 1;
    size_t last_size = 0;
    for (int64_t band : {int64_t{0}, top_size, height / 32, height / 8, height / 4}) {
      std::vector<int32_t> ruined = top;
      if (band > 0) {
        for (int32_t b : neighbours) {
          if (offsets_[b] + problem_.blocks[b].size > target - band &&
              offsets_[b] + problem_.blocks[b].size <= target) {
            ruined.push_back(b);
          }
        }
      }
      if (ruined.size() > kMaxRuined) break;
      if (band > 0 && ruined.size() == last_size) continue;  // same ruin as before
      last_size = ruined.size();
      if (Recreate(ruined, target, variant)) return true;
    }
    return false;
  }

 private:
  // Distinct blocks conflicting with any of `blocks` (excluding them).
  std::vector<int32_t> Conflicts(const std::vector<int32_t>& blocks) {
    ++current_stamp_;
    for (int32_t b : blocks) stamp_[b] = current_stamp_;
    std::vector<int32_t> raw, result;
    for (int32_t b : blocks) {
      raw.clear();
      for (const HeapTimeInterval& lifetime : problem_.blocks[b].lifetimes) {
        index_.Append(lifetime.start, lifetime.end, raw);
      }
      for (int32_t other : raw) {
        if (stamp_[other] == current_stamp_) continue;
        stamp_[other] = current_stamp_;
        result.push_back(other);
      }
    }
    return result;
  }

  // Lifts `ruined` out and places them again under `target`; keeps the new
  // offsets only if all fit. The variant picks the order (most constrained
  // first: area, lifetime or size, or the old offsets bottom-up, which can
  // only move blocks down) and the gap rule.
  bool Recreate(const std::vector<int32_t>& ruined, int64_t target, int variant) {
    std::vector<std::pair<double, int32_t>> keyed;
    std::uniform_real_distribution<double> noise(0.9, 1.1);
    for (int32_t b : ruined) {
      const HeapPackingBlock& block = problem_.blocks[b];
      int64_t live = 0;
      for (const HeapTimeInterval& lifetime : block.lifetimes) {
        live += lifetime.end - lifetime.start + 1;
      }
      const double size = static_cast<double>(block.size);
      double key = 0;  // ascending
      switch (variant % 6) {
        case 0: key = -size * static_cast<double>(live); break;
        case 1: key = -static_cast<double>(live); break;
        case 2: key = -size; break;
        case 3: key = -size * static_cast<double>(live); break;
        case 4: key = static_cast<double>(offsets_[b]); break;
        case 5: key = -size * static_cast<double>(live) * noise(rng_); break;
      }
      keyed.emplace_back(key, b);
    }
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    const bool lowest_offset = variant % 6 == 3 || variant % 6 == 4;
    for (int32_t b : ruined) moving_[b] = 1;
    std::vector<std::pair<int32_t, int64_t>> placed;  // (block, old offset)
    bool ok = true;
    for (const auto& [key, b] : keyed) {
      const int64_t offset = FindGap(b, target, lowest_offset);
      if (offset < 0) {
        ok = false;
        break;
      }
      placed.emplace_back(b, offsets_[b]);
      offsets_[b] = offset;
      moving_[b] = 0;
    }
    if (!ok) {
      for (auto it = placed.rbegin(); it != placed.rend(); ++it) offsets_[it->first] = it->second;
    }
    for (int32_t b : ruined) moving_[b] = 0;
    return ok;
  }

  // The offset for `block` among the blocks it conflicts with that are not
  // moving, ending at or below `target`; -1 if none.
  int64_t FindGap(int32_t block, int64_t target, bool lowest_offset) {
    const HeapPackingBlock& me = problem_.blocks[block];
    conflicts_.clear();
    for (const HeapTimeInterval& lifetime : me.lifetimes) {
      index_.Append(lifetime.start, lifetime.end, conflicts_);
    }
    used_.clear();
    for (int32_t other : conflicts_) {
      if (other == block || moving_[other]) continue;
      used_.emplace_back(offsets_[other], offsets_[other] + problem_.blocks[other].size);
    }
    std::sort(used_.begin(), used_.end());
    const int64_t alignment = problem_.alignment;
    int64_t best = -1;
    int64_t best_gap = std::numeric_limits<int64_t>::max();
    int64_t free_start = 0;
    auto consider = [&](int64_t gap_start, int64_t gap_end) {
      const int64_t offset = AlignHeapOffsetUp(gap_start, alignment);
      gap_end = std::min(gap_end, target);
      if (offset + me.size > gap_end) return false;
      if (lowest_offset) {
        best = offset;
        return true;
      }
      if (gap_end - gap_start < best_gap) {
        best_gap = gap_end - gap_start;
        best = offset;
      }
      return false;
    };
    for (const auto& [offset, end] : used_) {
      if (offset > free_start && consider(free_start, offset)) return best;
      free_start = std::max(free_start, end);
      if (free_start >= target) break;
    }
    if (free_start < target) consider(free_start, target);
    return best;
  }

  const HeapPackingProblem& problem_;
  std::vector<int64_t>& offsets_;
  std::mt19937_64& rng_;
  HeapBlockTimeIndex index_;
  std::vector<int32_t> stamp_;
  int32_t current_stamp_ = 0;
  std::vector<char> moving_;
  std::vector<int32_t> conflicts_;
  std::vector<std::pair<int64_t, int64_t>> used_;
};

}  // namespace

PeakRepairResult RepairPeak(const HeapPackingProblem& problem, int64_t lower_bound,
                            std::vector<int64_t>& offsets, int64_t max_attempts,
                            std::mt19937_64& rng,
                            std::optional<std::chrono::steady_clock::time_point> deadline) {
  PeakRepairResult result;
  PeakRepairer repairer(problem, offsets, rng);
  result.height = repairer.Height();
  constexpr int kVariants = 6;
  while (result.height > lower_bound && result.attempts < max_attempts) {
    if (deadline.has_value() && std::chrono::steady_clock::now() > *deadline) break;
    const int64_t target = result.height - 1;
    bool improved = false;
    for (int variant = 0; variant < kVariants && result.attempts < max_attempts; ++variant) {
      ++result.attempts;
      if (repairer.Attempt(target, variant)) {
        improved = true;
        break;
      }
    }
    if (!improved) break;
    ++result.improvements;
    result.height = repairer.Height();
  }
  return result;
}

}  // namespace hmo
