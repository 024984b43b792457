#include "hmo/analysis/packing_improver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <utility>

#include "hmo/analysis/heap_block_time_index.h"
#include "hmo/analysis/skyline_placement.h"
#include "hmo/analysis/tight_packing_greedy.h"

namespace hmo {

int64_t DefaultPackingImproverWork(int64_t blocks) { return 20'000 + 6 * blocks; }

double DefaultPackingImproverSeconds(int64_t blocks) {
  return std::clamp(100e-6 * static_cast<double>(blocks), 0.5, 5.0);
}

namespace {

using Clock = std::chrono::steady_clock;

// How a greedy pass places the blocks of its order.
enum class PassPlacement {
  kBestFit,       // in order, XLA's best-fit gap
  kLowestOffset,  // in order, the lowest fitting gap
  kSkyline,       // PlaceBlocksOnSkyline, the order breaking ties
};

// One greedy candidate of phase 1, built only when it is run.
struct GreedyCandidate {
  const char* name;
  std::function<std::vector<int32_t>()> order;
  PassPlacement placement;
};

std::vector<GreedyCandidate> GreedyCandidates(const BlockOrderKeys& keys) {
  using CP = PassPlacement;
  const BlockOrderKeys* k = &keys;
  // Most promising first (measured on the MiniMalloc/idealloc real-world
  // instances: S_1 and Y_1 gain most from size classes of 4, pangu from the
  // skyline in size order).
  return {
      {"size-class-4", [k] { return SizeClassOrder(*k, 4); }, CP::kBestFit},
      {"skyline-size", [k] { return SizeOrder(*k); }, CP::kSkyline},
      {"size-length-0.5", [k] { return SizeLengthOrder(*k, 0.5); }, CP::kBestFit},
      {"long-lived-0.3", [k] { return LongLivedFirstOrder(*k, 0.3); }, CP::kBestFit},
      {"size-class-6-lowest", [k] { return SizeClassOrder(*k, 6); }, CP::kLowestOffset},
      {"size-length-0.25", [k] { return SizeLengthOrder(*k, 0.25); }, CP::kBestFit},
      {"size-class-2", [k] { return SizeClassOrder(*k, 2); }, CP::kBestFit},
      {"size-length-0.1", [k] { return SizeLengthOrder(*k, 0.1); }, CP::kBestFit},
      {"long-lived-0.5", [k] { return LongLivedFirstOrder(*k, 0.5); }, CP::kBestFit},
  };
}

// A random order near the size-length family: descending
// log(size) + alpha * log(live_steps) + noise, alpha uniform in [0.2, 0.65] and
// the noise normal with a deviation uniform in [0, 0.3] (on real instances the
// best of a few such orders beats every fixed one).
std::vector<int32_t> RandomSizeLengthOrder(const BlockOrderKeys& keys, std::mt19937_64& rng) {
  const size_t n = keys.size.size();
  const double alpha = std::uniform_real_distribution<double>(0.2, 0.65)(rng);
  const double sigma = std::uniform_real_distribution<double>(0.0, 0.3)(rng);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::vector<double> key(n);
  for (size_t b = 0; b < n; ++b) {
    key[b] = keys.size[b] <= 0
                 ? -1e300
                 : std::log(static_cast<double>(keys.size[b])) +
                       alpha * std::log(static_cast<double>(std::max<int64_t>(1, keys.live_steps[b]))) +
                       sigma * noise(rng);
  }
  std::vector<int32_t> order(n);
  for (size_t b = 0; b < n; ++b) order[b] = static_cast<int32_t>(b);
  std::stable_sort(order.begin(), order.end(),
                   [&key](int32_t a, int32_t b) { return key[a] > key[b]; });
  return order;
}

// The work of a typical phase-3 move: half the most blocks live at one time
// (at most PeakStackSearch::kMaxLifted), each looking at up to every block.
int64_t EstimatedMoveWork(const HeapPackingProblem& problem);

// Phase 3: ruin and recreate the stack at the peak.
class PeakStackSearch {
 public:
  // Fewer lifted blocks per move keeps a move's cost bounded.
  static constexpr size_t kMaxLifted = 1024;
  // Conflicting blocks looked at per work unit.
  static constexpr int64_t kConflictsPerUnit = 64;

  PeakStackSearch(const HeapPackingProblem& problem, std::vector<int64_t>& offsets, uint64_t seed)
      : problem_(problem),
        offsets_(offsets),
        rng_(seed),
        index_(problem),
        stamp_(problem.blocks.size(), 0),
        moving_(problem.blocks.size(), 0) {
    // Live bytes at every index point (a block counts once per lifetime).
    const std::vector<int64_t>& points = index_.points();
    std::vector<int64_t> delta(points.size() + 1, 0);
    for (const HeapPackingBlock& block : problem_.blocks) {
      for (const HeapTimeInterval& lifetime : block.lifetimes) {
        delta[PointIndex(lifetime.start)] += block.size;
        delta[PointIndex(lifetime.end) + 1] -= block.size;
      }
    }
    load_.resize(points.size());
    int64_t live = 0;
    for (size_t i = 0; i < points.size(); ++i) load_[i] = live += delta[i];
    height_ = HeapPackingHeight(problem_, offsets_);
  }

  int64_t height() const { return height_; }

  // Tries moves until `work` reaches `work_limit`, the deadline passes or the
  // height reaches `lower_bound`.
  void Run(int64_t lower_bound, int64_t work_limit, std::optional<Clock::time_point> deadline,
           int64_t& work, PackingImproverReport& report) {
    while (height_ > lower_bound && work < work_limit) {
      if (deadline.has_value() && Clock::now() > *deadline) {
        report.stopped_by_time = true;
        break;
      }
      ++report.moves;
      const std::optional<bool> kept = Move(work, deadline);
      if (!kept.has_value()) {
        report.stopped_by_time = true;
        break;
      }
      if (*kept) ++report.accepted_moves;
    }
  }

 private:
  int32_t PointIndex(int64_t time) const {
    const std::vector<int64_t>& points = index_.points();
    return static_cast<int32_t>(std::lower_bound(points.begin(), points.end(), time) -
                                points.begin());
  }
  int64_t Top(int32_t b) const { return offsets_[b] + problem_.blocks[b].size; }

  // The time the move works at: the point of most live bytes in a lifetime
  // of a block reaching the height (sometimes a random point of it instead).
  int64_t PickTime() {
    std::vector<int32_t>& tops = scratch_;
    tops.clear();
    for (int32_t b = 0; b < static_cast<int32_t>(problem_.blocks.size()); ++b) {
      if (problem_.blocks[b].size > 0 && Top(b) == height_) tops.push_back(b);
    }
    const HeapPackingBlock& block = problem_.blocks[tops[rng_() % tops.size()]];
    const HeapTimeInterval& lifetime = block.lifetimes[rng_() % block.lifetimes.size()];
    const int32_t first = PointIndex(lifetime.start);
    const int32_t last = PointIndex(lifetime.end);
    if (rng_() % 4 == 0) return index_.points()[first + rng_() % (last - first + 1)];
    int32_t best = first;
    for (int32_t i = first + 1; i <= last; ++i) {
      if (load_[i] > load_[best]) best = i;
    }
    return index_.points()[best];
  }

  // Distinct blocks live at `time`, by offset.
  std::vector<int32_t> LiveAt(int64_t time) {
    scratch_.clear();
    index_.Append(time, time, scratch_);
    ++current_stamp_;
    std::vector<int32_t> live;
    for (int32_t b : scratch_) {
      if (stamp_[b] == current_stamp_) continue;
      stamp_[b] = current_stamp_;
      live.push_back(b);
    }
    std::sort(live.begin(), live.end(), [this](int32_t a, int32_t b) {
      return offsets_[a] != offsets_[b] ? offsets_[a] < offsets_[b] : a < b;
    });
    return live;
  }

  // One ruin and recreate; true when kept, nullopt (and undone) when the
  // deadline passed during it (one move on a large instance can take long).
  std::optional<bool> Move(int64_t& work, std::optional<Clock::time_point> deadline) {
    std::vector<int32_t> lifted = LiveAt(PickTime());
    // All of the stack, or its upper half or quarter.
    const uint64_t part = rng_() % 3;
    size_t keep = lifted.size() >> part;
    keep = std::min(std::max<size_t>(keep, 1), kMaxLifted);
    lifted.erase(lifted.begin(), lifted.end() - static_cast<std::ptrdiff_t>(keep));

    const int variant = static_cast<int>(rng_() % 6);
    const bool lowest_offset = variant == 4 || rng_() % 3 == 0;
    std::vector<std::pair<double, int32_t>> keyed;
    std::uniform_real_distribution<double> noise(0.8, 1.25);
    int64_t old_tops = 0;
    for (int32_t b : lifted) {
      const HeapPackingBlock& block = problem_.blocks[b];
      int64_t live = 0;
      for (const HeapTimeInterval& lifetime : block.lifetimes) {
        live += lifetime.end - lifetime.start + 1;
      }
      const double size = static_cast<double>(block.size);
      const double length = static_cast<double>(live);
      double key = 0;  // ascending
      switch (variant) {
        case 0: key = -size - 1e-9 * length; break;
        case 1: key = -std::floor(std::log(size) / std::log(4.0)) * 1e18 - length; break;
        case 2: key = -length - 1e-12 * size; break;
        case 3: key = -size * noise(rng_); break;
        case 4: key = static_cast<double>(offsets_[b]); break;
        default: key = -size * std::sqrt(length) * noise(rng_); break;
      }
      keyed.emplace_back(key, b);
      old_tops += Top(b);
    }
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });

    saved_.clear();
    for (int32_t b : lifted) {
      moving_[b] = 1;
      saved_.emplace_back(b, offsets_[b]);
    }
    int64_t new_tops = 0;
    int placed = 0;
    for (const auto& [key, b] : keyed) {
      if (deadline.has_value() && ++placed % 16 == 0 && Clock::now() > *deadline) {
        for (const auto& [block, offset] : saved_) {
          offsets_[block] = offset;
          moving_[block] = 0;
        }
        return std::nullopt;
      }
      offsets_[b] = FindGap(b, lowest_offset, work);
      moving_[b] = 0;
      new_tops += Top(b);
    }
    const int64_t new_height = HeapPackingHeight(problem_, offsets_);
    if (new_height < height_ || (new_height == height_ && new_tops <= old_tops)) {
      height_ = new_height;
      return true;
    }
    for (const auto& [b, offset] : saved_) offsets_[b] = offset;
    return false;
  }

  // The best-fit (or lowest) offset for `block` among the blocks it
  // conflicts with that are not moving.
  int64_t FindGap(int32_t block, bool lowest_offset, int64_t& work) {
    const HeapPackingBlock& me = problem_.blocks[block];
    conflicts_.clear();
    for (const HeapTimeInterval& lifetime : me.lifetimes) {
      index_.Append(lifetime.start, lifetime.end, conflicts_);
    }
    work += 1 + static_cast<int64_t>(conflicts_.size()) / kConflictsPerUnit;
    used_.clear();
    for (int32_t other : conflicts_) {
      if (other == block || moving_[other]) continue;
      used_.emplace_back(offsets_[other], Top(other));
    }
    std::sort(used_.begin(), used_.end());
    const int64_t alignment = problem_.alignment;
    int64_t best = -1;
    int64_t best_gap = std::numeric_limits<int64_t>::max();
    int64_t free_start = 0;
    for (const auto& [offset, end] : used_) {
      if (offset > free_start) {
        const int64_t candidate = AlignHeapOffsetUp(free_start, alignment);
        if (candidate + me.size <= offset) {
          if (lowest_offset) return candidate;
          if (offset - free_start < best_gap) {
            best_gap = offset - free_start;
            best = candidate;
          }
        }
      }
      free_start = std::max(free_start, end);
    }
    return best >= 0 ? best : AlignHeapOffsetUp(free_start, alignment);
  }

  const HeapPackingProblem& problem_;
  std::vector<int64_t>& offsets_;
  std::mt19937_64 rng_;
  HeapBlockTimeIndex index_;
  std::vector<int64_t> load_;  // live bytes per index point
  int64_t height_ = 0;
  std::vector<int32_t> stamp_;
  int32_t current_stamp_ = 0;
  std::vector<char> moving_;
  std::vector<int32_t> scratch_;
  std::vector<int32_t> conflicts_;
  std::vector<std::pair<int64_t, int64_t>> used_;
  std::vector<std::pair<int32_t, int64_t>> saved_;
};

int64_t EstimatedMoveWork(const HeapPackingProblem& problem) {
  std::vector<std::pair<int64_t, int32_t>> events;  // (time, +1 start / -1 after end)
  for (const HeapPackingBlock& block : problem.blocks) {
    if (block.size == 0) continue;
    for (const HeapTimeInterval& lifetime : block.lifetimes) {
      events.emplace_back(lifetime.start, 1);
      events.emplace_back(lifetime.end + 1, -1);
    }
  }
  std::sort(events.begin(), events.end());  // ends (-1) before starts at one time
  int64_t live = 0, most = 0;
  for (const auto& [time, delta] : events) most = std::max(most, live += delta);
  const int64_t lifted = std::min<int64_t>(most, PeakStackSearch::kMaxLifted) / 2 + 1;
  const int64_t n = static_cast<int64_t>(problem.blocks.size());
  return lifted * (1 + n / PeakStackSearch::kConflictsPerUnit);
}

}  // namespace

PackingImproverReport ImprovePacking(const HeapPackingProblem& problem,
                                     std::vector<int64_t>& offsets,
                                     const PackingImproverOptions& options) {
  const auto begin = Clock::now();
  const int64_t n = static_cast<int64_t>(problem.blocks.size());
  const int64_t budget =
      options.work_budget > 0 ? options.work_budget : DefaultPackingImproverWork(n);
  const double seconds = options.time_limit_seconds > 0 ? options.time_limit_seconds
                                                        : DefaultPackingImproverSeconds(n);
  const Clock::time_point deadline =
      begin + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));

  PackingImproverReport report;
  report.lower_bound = HeapPackingLowerBound(problem);
  report.initial_height = report.height = HeapPackingHeight(problem, offsets);
  report.method = "initial";
  int64_t work = 0;

  // Phase 1: whole greedy passes in fixed orders; phase 2: in random ones.
  const BlockOrderKeys keys = ComputeBlockOrderKeys(problem);
  const auto share = [budget](double fraction) {
    return static_cast<int64_t>(fraction * static_cast<double>(budget));
  };
  std::vector<int64_t> candidate;
  Clock::duration last_pass{0};
  // How the best pass so far placed its blocks; the random orders use it.
  PassPlacement best_placement = PassPlacement::kBestFit;
  // A skyline pass may take at most this many work units (it is abandoned
  // past them): a few best-fit passes' worth.
  const int64_t skyline_work_cap = 4 * n;
  const auto try_order = [&](const char* name, const std::vector<int32_t>& order,
                             PassPlacement placement, int64_t limit) {
    const auto pass_begin = Clock::now();
    int64_t height = std::numeric_limits<int64_t>::max();
    if (placement == PassPlacement::kSkyline) {
      // may_pass left room for a best-fit pass, so this is positive (0 would
      // mean no limit to PlaceBlocksOnSkyline).
      const int64_t allowed = std::max<int64_t>(1, std::min(skyline_work_cap, limit - work));
      std::optional<SkylinePlacement> placed =
          PlaceBlocksOnSkyline(problem, order, allowed * kSkylineStepsPerPlacement);
      if (placed.has_value()) {
        height = placed->height;
        candidate = std::move(placed->offsets);
        work += placed->steps / kSkylineStepsPerPlacement;
      } else {
        work += allowed;
      }
    } else {
      height =
          PlaceBlocksInOrder(problem, order,
                             placement == PassPlacement::kBestFit ? ChunkPlacement::kBestFit
                                                                  : ChunkPlacement::kLowestOffset,
                             candidate);
      work += n;
    }
    last_pass = Clock::now() - pass_begin;
    ++report.greedy_passes;
    if (height < report.height) {
      report.height = height;
      report.method = name;
      best_placement = placement;
      offsets.swap(candidate);
    }
  };
  const auto may_pass = [&](int64_t limit) {
    if (report.height <= report.lower_bound || work + n > limit) return false;
    // A pass cannot be interrupted: stop when the last one would not fit.
    if (Clock::now() + last_pass + last_pass / 4 > deadline) {
      report.stopped_by_time = true;
      return false;
    }
    return true;
  };
  for (const GreedyCandidate& greedy : GreedyCandidates(keys)) {
    if (!may_pass(share(options.greedy_share))) break;
    try_order(greedy.name, greedy.order(), greedy.placement, share(options.greedy_share));
  }
  // Phase 3 pays only where a move is cheap next to its budget: a move lifts
  // up to the peak's stack and looks at up to all blocks for each, so on
  // large instances the random orders get its share too.
  int64_t random_limit = share(options.random_share);
  const int64_t move_work = EstimatedMoveWork(problem);
  if (move_work * 4 > budget - random_limit) random_limit = budget;
  std::mt19937_64 rng(options.seed);
  while (may_pass(random_limit)) {
    try_order(best_placement == PassPlacement::kSkyline ? "random-size-length-skyline"
                                                        : "random-size-length",
              RandomSizeLengthOrder(keys, rng), best_placement, random_limit);
  }

  // Phase 3: ruin and recreate at the peak, on the best placement so far.
  if (report.height > report.lower_bound && work + move_work <= budget &&
      !report.stopped_by_time) {
    PeakStackSearch search(problem, offsets, options.seed);
    search.Run(report.lower_bound, budget, deadline, work, report);
    if (search.height() < report.height) {
      report.height = search.height();
      report.method = "ils";
    }
  }
  report.work = work;
  return report;
}

}  // namespace hmo
