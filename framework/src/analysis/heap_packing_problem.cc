#include "hmo/analysis/heap_packing_problem.h"

#include <algorithm>
#include <map>
#include <queue>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hmo {

int64_t HeapPackingLowerBound(const HeapPackingProblem& problem) {
  // (time, delta) over the union of each block's lifetimes.
  std::vector<std::pair<int64_t, int64_t>> deltas;
  std::vector<HeapTimeInterval> merged;
  for (const HeapPackingBlock& block : problem.blocks) {
    if (block.size == 0 || block.lifetimes.empty()) continue;
    merged = block.lifetimes;
    std::sort(merged.begin(), merged.end(),
              [](const HeapTimeInterval& a, const HeapTimeInterval& b) { return a.start < b.start; });
    int64_t run_start = merged[0].start;
    int64_t run_end = merged[0].end;
    auto flush = [&] {
      deltas.emplace_back(run_start, block.size);
      deltas.emplace_back(run_end + 1, -block.size);
    };
    for (size_t i = 1; i < merged.size(); ++i) {
      if (merged[i].start <= run_end + 1) {
        run_end = std::max(run_end, merged[i].end);
      } else {
        flush();
        run_start = merged[i].start;
        run_end = merged[i].end;
      }
    }
    flush();
  }
  // At equal times apply the frees (negative deltas) first.
  std::sort(deltas.begin(), deltas.end());
  int64_t live = 0;
  int64_t peak = 0;
  for (const auto& [time, delta] : deltas) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

HeapPackingProblem CompressHeapPackingTime(const HeapPackingProblem& problem) {
  // (time, kind): kind 0 = some lifetime starts, 1 = some lifetime ends
  // (inclusively) at that time.
  std::vector<std::pair<int64_t, int>> marks;
  for (const HeapPackingBlock& block : problem.blocks) {
    for (const HeapTimeInterval& lifetime : block.lifetimes) {
      marks.emplace_back(lifetime.start, 0);
      marks.emplace_back(lifetime.end, 1);
    }
  }
  std::sort(marks.begin(), marks.end());
  marks.erase(std::unique(marks.begin(), marks.end()), marks.end());
  // step[i] for the i-th distinct time.
  std::vector<int64_t> times;
  std::vector<int64_t> steps;
  int64_t step = 0;
  bool ended_in_step = false;
  for (size_t i = 0; i < marks.size();) {
    const int64_t time = marks[i].first;
    bool starts = false, ends = false;
    for (; i < marks.size() && marks[i].first == time; ++i) {
      (marks[i].second == 0 ? starts : ends) = true;
    }
    // A lifetime starting after one ended must not share its step.
    if (starts && ended_in_step) {
      ++step;
      ended_in_step = false;
    }
    times.push_back(time);
    steps.push_back(step);
    if (ends) ended_in_step = true;
  }
  auto step_of = [&](int64_t time) {
    return steps[std::lower_bound(times.begin(), times.end(), time) - times.begin()];
  };
  HeapPackingProblem compressed = problem;
  for (HeapPackingBlock& block : compressed.blocks) {
    for (HeapTimeInterval& lifetime : block.lifetimes) {
      lifetime.start = step_of(lifetime.start);
      lifetime.end = step_of(lifetime.end);
    }
  }
  return compressed;
}

int64_t HeapPackingHeight(const HeapPackingProblem& problem, absl::Span<const int64_t> offsets) {
  int64_t height = 0;
  for (size_t i = 0; i < problem.blocks.size() && i < offsets.size(); ++i) {
    if (problem.blocks[i].size > 0) height = std::max(height, offsets[i] + problem.blocks[i].size);
  }
  return height;
}

absl::Status CheckNoOverlapInTimeAndSpace(std::vector<PlacedLifetime> lifetimes) {
  lifetimes.erase(std::remove_if(lifetimes.begin(), lifetimes.end(),
                                 [](const PlacedLifetime& l) { return l.size == 0; }),
                  lifetimes.end());
  std::sort(lifetimes.begin(), lifetimes.end(), [](const PlacedLifetime& a, const PlacedLifetime& b) {
    return a.start < b.start;
  });
  // Active lifetimes by (offset, index); ended ones leave via a min-heap on end.
  std::map<std::pair<int64_t, size_t>, size_t> active;
  using Ending = std::pair<int64_t, size_t>;
  std::priority_queue<Ending, std::vector<Ending>, std::greater<>> ending;
  auto describe = [&](size_t i) {
    const PlacedLifetime& l = lifetimes[i];
    return absl::StrCat("block ", l.group, " time [", l.start, ",", l.end, "] bytes [", l.offset,
                        ",", l.offset + l.size, ")");
  };
  auto conflict = [&](size_t a, size_t b) -> absl::Status {
    return absl::InternalError(
        absl::StrCat("Overlap in time and space: ", describe(a), " and ", describe(b)));
  };
  for (size_t i = 0; i < lifetimes.size(); ++i) {
    const PlacedLifetime& l = lifetimes[i];
    while (!ending.empty() && ending.top().first < l.start) {
      const size_t j = ending.top().second;
      active.erase({lifetimes[j].offset, j});
      ending.pop();
    }
    const int64_t l_end = l.offset + l.size;
    // Active lifetimes starting at or above l.offset and below its end.
    auto it = active.lower_bound({l.offset, 0});
    for (auto up = it; up != active.end() && up->first.first < l_end; ++up) {
      if (lifetimes[up->second].group != l.group) return conflict(up->second, i);
    }
    // Active lifetimes starting below l.offset that reach into it. Among
    // other groups they are pairwise disjoint, so walking down stops at the
    // first one of another group that ends at or below l.offset.
    for (auto down = it; down != active.begin();) {
      --down;
      const PlacedLifetime& other = lifetimes[down->second];
      if (other.group == l.group) continue;
      if (other.offset + other.size > l.offset) return conflict(down->second, i);
      break;
    }
    active.emplace(std::make_pair(l.offset, i), i);
    ending.emplace(l.end, i);
  }
  return absl::OkStatus();
}

absl::Status ValidateHeapPacking(const HeapPackingProblem& problem,
                                 absl::Span<const int64_t> offsets) {
  if (offsets.size() != problem.blocks.size()) {
    return absl::InvalidArgumentError(absl::StrCat("Placement has ", offsets.size(),
                                                   " offsets for ", problem.blocks.size(),
                                                   " blocks"));
  }
  std::vector<PlacedLifetime> placed;
  for (size_t i = 0; i < offsets.size(); ++i) {
    const HeapPackingBlock& block = problem.blocks[i];
    if (offsets[i] < 0) {
      return absl::InternalError(absl::StrCat("Block ", i, " has negative offset ", offsets[i]));
    }
    if (block.size > 0 && offsets[i] % problem.alignment != 0) {
      return absl::InternalError(absl::StrCat("Block ", i, " offset ", offsets[i],
                                              " is not a multiple of ", problem.alignment));
    }
    for (const HeapTimeInterval& lifetime : block.lifetimes) {
      placed.push_back({lifetime.start, lifetime.end, offsets[i], block.size,
                        static_cast<int64_t>(i)});
    }
  }
  return CheckNoOverlapInTimeAndSpace(std::move(placed));
}

}  // namespace hmo
