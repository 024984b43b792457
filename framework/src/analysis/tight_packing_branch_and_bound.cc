#include "hmo/analysis/tight_packing_branch_and_bound.h"

#include <algorithm>
#include <limits>

namespace hmo {
namespace {

// section_min_ of a section without unplaced blocks.
constexpr int64_t kNoBlock = std::numeric_limits<int64_t>::max();

}  // namespace

TightPackingPreorder TightPackingPreorder::FromLetters(std::string_view letters) {
  TightPackingPreorder preorder;
  preorder.keys = {Key::kNone, Key::kNone, Key::kNone};
  for (size_t i = 0; i < letters.size() && i < preorder.keys.size(); ++i) {
    switch (letters[i]) {
      case 'W': preorder.keys[i] = Key::kWidth; break;
      case 'A': preorder.keys[i] = Key::kArea; break;
      case 'T': preorder.keys[i] = Key::kTotal; break;
      case 'Z': preorder.keys[i] = Key::kSize; break;
      case 'S': preorder.keys[i] = Key::kStart; break;
      case 'E': preorder.keys[i] = Key::kEnd; break;
      case 'C': preorder.keys[i] = Key::kSections; break;
      case 'R': preorder.keys[i] = Key::kSectionArea; break;
      default: break;
    }
  }
  return preorder;
}

std::vector<TightPackingPreorder> TightPackingDefaultPreorders() {
  std::vector<TightPackingPreorder> preorders;
  for (std::string_view letters : {"WAT", "TAW", "TWA", "CRT", "TRC", "TCR", "SZT", "EZT", "ZAT"}) {
    preorders.push_back(TightPackingPreorder::FromLetters(letters));
  }
  return preorders;
}

std::vector<int64_t> TightPackingLifespans(const HeapPackingProblem& problem) {
  std::vector<int64_t> lifespans(problem.blocks.size(), 0);
  for (size_t b = 0; b < problem.blocks.size(); ++b) {
    const auto& lifetimes = problem.blocks[b].lifetimes;
    if (lifetimes.empty()) continue;
    int64_t first = lifetimes.front().start;
    int64_t last = lifetimes.front().end;
    for (const HeapTimeInterval& lifetime : lifetimes) {
      first = std::min(first, lifetime.start);
      last = std::max(last, lifetime.end);
    }
    lifespans[b] = last + 1 - first;
  }
  return lifespans;
}

TightPackingBranchAndBound::TightPackingBranchAndBound(const HeapPackingProblem& problem,
                                                       const TightPackingSweep& sweep,
                                                       std::vector<int64_t> lifespans)
    : problem_(problem), sweep_(sweep), width_(std::move(lifespans)) {
  const int32_t n = static_cast<int32_t>(problem_.blocks.size());
  if (static_cast<int32_t>(width_.size()) != n) width_ = TightPackingLifespans(problem_);
  sections_spanned_.assign(n, 0);
  for (int32_t b = 0; b < n; ++b) {
    if (!sweep_.block_sections[b].empty()) {
      sections_spanned_[b] = sweep_.span_end(b) - sweep_.span_begin(b);
    }
  }
}

TightPackingOutcome TightPackingBranchAndBound::Decide(
    int64_t capacity, TightPackingPreorder preorder, int64_t node_limit,
    std::optional<Clock::time_point> deadline, std::vector<int64_t>& offsets) {
  const int32_t n = static_cast<int32_t>(problem_.blocks.size());
  const int32_t num_sections = sweep_.num_sections();
  capacity_ = capacity;
  preorder_ = preorder;
  rank_.assign(n, 0);
  unplaced_conflicts_.assign(n, 0);
  for (int32_t b = 0; b < n; ++b) {
    unplaced_conflicts_[b] = static_cast<int32_t>(sweep_.conflicts[b].size());
  }
  node_limit_ = node_limit;
  deadline_ = deadline;
  nodes_ = 0;
  offset_.assign(n, -1);
  min_offset_.assign(n, 0);
  solution_.assign(n, 0);
  floor_.assign(num_sections, 0);
  total_.assign(num_sections, 0);
  cuts_ = sweep_.cuts;
  offset_trail_.clear();
  floor_trail_.clear();
  section_min_.assign(num_sections, kNoBlock);
  section_min_count_.assign(num_sections, 0);
  section_min_trail_.clear();
  affected_stamp_.assign(num_sections, 0);
  stamp_ = 0;
  InitLiveBlocks();
  for (int32_t s = 0; s < num_sections; ++s) {
    for (int32_t b : sweep_.section_blocks[s]) total_[s] += problem_.blocks[b].size;
    if (!sweep_.section_blocks[s].empty()) {
      section_min_[s] = 0;
      section_min_count_[s] = static_cast<int32_t>(sweep_.section_blocks[s].size());
    }
    if (total_[s] > capacity) return TightPackingOutcome::kInfeasible;
  }
  for (int32_t b = 0; b < n; ++b) {
    if (problem_.blocks[b].size > capacity) return TightPackingOutcome::kInfeasible;
  }
  // Root partitions: runs of sections between zero cuts.
  int32_t begin = 0;
  std::vector<std::vector<int32_t>> by_first_section(num_sections);
  for (int32_t b = 0; b < n; ++b) {
    if (!sweep_.block_sections[b].empty()) by_first_section[sweep_.span_begin(b)].push_back(b);
  }
  for (int32_t s = 0; s < num_sections; ++s) {
    const bool last = s + 1 == num_sections;
    if (!last && cuts_[s] != 0) continue;
    Partition partition;
    partition.section_begin = begin;
    partition.section_end = s + 1;
    for (int32_t t = begin; t <= s; ++t) {
      partition.blocks.insert(partition.blocks.end(), by_first_section[t].begin(),
                              by_first_section[t].end());
    }
    begin = s + 1;
    if (partition.blocks.empty()) continue;
    const TightPackingOutcome outcome = SolvePartition(partition);
    if (outcome != TightPackingOutcome::kFound) return outcome;
  }
  offsets = solution_;
  return TightPackingOutcome::kFound;
}

void TightPackingBranchAndBound::RankPartition(const Partition& partition) {
  using Key = TightPackingPreorder::Key;
  struct Keyed {
    std::array<unsigned __int128, 3> values;  // larger first
    int32_t block;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(partition.blocks.size());
  for (int32_t b : partition.blocks) {
    if (offset_[b] >= 0) continue;
    const HeapPackingBlock& block = problem_.blocks[b];
    Keyed k{{0, 0, 0}, b};
    for (size_t i = 0; i < preorder_.keys.size(); ++i) {
      unsigned __int128 value = 0;
      switch (preorder_.keys[i]) {
        case Key::kNone:
          break;
        case Key::kWidth:
          value = static_cast<uint64_t>(width_[b]);
          break;
        case Key::kArea:
          value = static_cast<unsigned __int128>(block.size) * static_cast<uint64_t>(width_[b]);
          break;
        case Key::kTotal: {
          int64_t total = 0;
          for (const auto& range : sweep_.block_sections[b]) {
            for (int32_t s = range.begin; s < range.end; ++s) total = std::max(total, total_[s]);
          }
          value = static_cast<uint64_t>(total);
          break;
        }
        case Key::kSize:
          value = static_cast<uint64_t>(block.size);
          break;
        case Key::kStart:  // earliest first: larger value for smaller sections
          value = static_cast<uint64_t>(sweep_.num_sections() - sweep_.span_begin(b));
          break;
        case Key::kEnd:
          value = static_cast<uint64_t>(sweep_.span_end(b));
          break;
        case Key::kSections:
          value = static_cast<uint64_t>(sections_spanned_[b]);
          break;
        case Key::kSectionArea:
          value = static_cast<unsigned __int128>(block.size) *
                  static_cast<uint64_t>(sections_spanned_[b]);
          break;
      }
      k.values[i] = value;
    }
    keyed.push_back(k);
  }
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    if (a.values != b.values) return a.values > b.values;
    return a.block < b.block;
  });
  for (size_t i = 0; i < keyed.size(); ++i) rank_[keyed[i].block] = static_cast<int32_t>(i);
}

TightPackingOutcome TightPackingBranchAndBound::SolvePartition(const Partition& partition) {
  // Sub-partitions re-rank a subset of the blocks; restore the caller's ranks.
  std::vector<int32_t> saved;
  saved.reserve(partition.blocks.size());
  for (int32_t b : partition.blocks) saved.push_back(rank_[b]);
  RankPartition(partition);
  const TightPackingOutcome outcome =
      Search(partition, std::numeric_limits<int64_t>::min(), -1);
  for (size_t i = 0; i < partition.blocks.size(); ++i) rank_[partition.blocks[i]] = saved[i];
  return outcome;
}

bool TightPackingBranchAndBound::Place(int32_t block, int64_t offset) {
  const int64_t size = problem_.blocks[block].size;
  const int64_t end = offset + size;
  const int64_t aligned_end = AlignUp(end);
  ++stamp_;
  affected_.clear();
  // A section's lowest unplaced min offset changes only when the last block
  // holding it is placed or raised; section_min_count_ counts the holders.
  auto touch = [this](int32_t other, int64_t old_min_offset) {
    for (const auto& range : sweep_.block_sections[other]) {
      for (int32_t s = range.begin; s < range.end; ++s) {
        if (section_min_[s] != old_min_offset) continue;
        section_min_trail_.push_back({section_min_[s], s, section_min_count_[s]});
        if (--section_min_count_[s] == 0 && affected_stamp_[s] != stamp_) {
          affected_stamp_[s] = stamp_;
          affected_.push_back(s);
        }
      }
    }
  };
  offset_[block] = offset;
  solution_[block] = offset;
  touch(block, min_offset_[block]);
  for (int32_t other : sweep_.conflicts[block]) {
    --unplaced_conflicts_[other];
    if (offset_[other] >= 0 || min_offset_[other] >= aligned_end) continue;
    offset_trail_.emplace_back(other, min_offset_[other]);
    touch(other, min_offset_[other]);
    min_offset_[other] = aligned_end;
  }
  int32_t k = live_pos_begin_[block];
  for (const auto& range : sweep_.block_sections[block]) {
    for (int32_t s = range.begin; s < range.end; ++s, ++k) {
      floor_trail_.emplace_back(s, floor_[s]);
      floor_[s] = std::max(floor_[s], end);
      total_[s] -= size;
      // Swap the block behind the section's unplaced blocks; Undo, last in
      // first out, finds it there.
      const int32_t last = --live_count_[s];
      const int32_t at = live_pos_[k];
      const int32_t moved = live_blocks_[live_begin_[s] + last];
      live_blocks_[live_begin_[s] + at] = moved;
      live_blocks_[live_begin_[s] + last] = block;
      live_pos_[LivePosIndex(moved, s)] = at;
      live_pos_[k] = last;
    }
  }
  // Only these sections' floors rose; QuickCheck covered all the others.
  for (int32_t s : affected_) {
    int64_t lowest = kNoBlock;
    int32_t holders = 0;
    const int32_t* live = live_blocks_.data() + live_begin_[s];
    for (int32_t i = 0; i < live_count_[s]; ++i) {
      const int32_t other = live[i];
      if (min_offset_[other] < lowest) {
        lowest = min_offset_[other];
        holders = 1;
      } else if (min_offset_[other] == lowest) {
        ++holders;
      }
    }
    section_min_trail_.push_back({section_min_[s], s, section_min_count_[s]});
    section_min_[s] = lowest;
    section_min_count_[s] = holders;
    if (std::max(offset, Floor(s)) + total_[s] > capacity_) return false;
  }
  return true;
}

void TightPackingBranchAndBound::Undo(int32_t block, size_t offset_trail_size,
                                      size_t floor_trail_size, size_t section_min_trail_size) {
  while (section_min_trail_.size() > section_min_trail_size) {
    const SectionMinChange& change = section_min_trail_.back();
    section_min_[change.section] = change.min;
    section_min_count_[change.section] = change.count;
    section_min_trail_.pop_back();
  }
  while (floor_trail_.size() > floor_trail_size) {
    floor_[floor_trail_.back().first] = floor_trail_.back().second;
    floor_trail_.pop_back();
  }
  while (offset_trail_.size() > offset_trail_size) {
    min_offset_[offset_trail_.back().first] = offset_trail_.back().second;
    offset_trail_.pop_back();
  }
  const int64_t size = problem_.blocks[block].size;
  for (const auto& range : sweep_.block_sections[block]) {
    for (int32_t s = range.begin; s < range.end; ++s) {
      total_[s] += size;
      ++live_count_[s];
    }
  }
  for (int32_t other : sweep_.conflicts[block]) ++unplaced_conflicts_[other];
  offset_[block] = -1;
}

void TightPackingBranchAndBound::InitLiveBlocks() {
  const int32_t n = static_cast<int32_t>(problem_.blocks.size());
  const int32_t num_sections = sweep_.num_sections();
  live_begin_.assign(num_sections, 0);
  live_count_.assign(num_sections, 0);
  live_blocks_.clear();
  for (int32_t s = 0; s < num_sections; ++s) {
    live_begin_[s] = static_cast<int32_t>(live_blocks_.size());
    live_count_[s] = static_cast<int32_t>(sweep_.section_blocks[s].size());
    live_blocks_.insert(live_blocks_.end(), sweep_.section_blocks[s].begin(),
                        sweep_.section_blocks[s].end());
  }
  live_pos_begin_.assign(n + 1, 0);
  for (int32_t b = 0; b < n; ++b) {
    int32_t covered = 0;
    for (const auto& range : sweep_.block_sections[b]) covered += range.end - range.begin;
    live_pos_begin_[b + 1] = live_pos_begin_[b] + covered;
  }
  live_pos_.assign(live_pos_begin_[n], 0);
  for (int32_t s = 0; s < num_sections; ++s) {
    const auto& blocks = sweep_.section_blocks[s];
    for (int32_t i = 0; i < static_cast<int32_t>(blocks.size()); ++i) {
      live_pos_[LivePosIndex(blocks[i], s)] = i;
    }
  }
}

int32_t TightPackingBranchAndBound::LivePosIndex(int32_t block, int32_t section) const {
  int32_t k = live_pos_begin_[block];
  for (const auto& range : sweep_.block_sections[block]) {
    if (section < range.end) return k + (section - range.begin);
    k += range.end - range.begin;
  }
  return k;  // not reached: `block` covers `section`
}

int64_t TightPackingBranchAndBound::Floor(int32_t section) const {
  // Unplaced blocks of the section stack above its highest placed end and
  // above the lowest of their own min offsets.
  return std::max(floor_[section], section_min_[section] == kNoBlock ? 0 : section_min_[section]);
}

void TightPackingBranchAndBound::FindOverflowingSections(const Partition& partition,
                                                         int64_t offset) {
  overflowing_.clear();
  for (int32_t s = partition.section_begin; s < partition.section_end; ++s) {
    if (std::max(offset, Floor(s)) + total_[s] > capacity_) overflowing_.push_back(s);
  }
}

bool TightPackingBranchAndBound::QuickCheck(int32_t block, int64_t offset) const {
  // A section the block does not cover keeps its overflow; a covered one
  // drops the block's bytes but its floor rises to the block's end. Sections
  // that did not overflow cannot start to.
  const int64_t size = problem_.blocks[block].size;
  const auto& ranges = sweep_.block_sections[block];
  size_t next_range = 0;
  for (int32_t s : overflowing_) {
    while (next_range < ranges.size() && ranges[next_range].end <= s) ++next_range;
    if (next_range == ranges.size() || ranges[next_range].begin > s) return false;
    if (std::max(Floor(s), offset + size) + total_[s] - size > capacity_) return false;
  }
  return true;
}

TightPackingOutcome TightPackingBranchAndBound::Search(const Partition& partition,
                                                       int64_t last_offset, int32_t last_rank) {
  if (nodes_ >= node_limit_) {
    return TightPackingOutcome::kAborted;
  }
  ++nodes_;
  if (deadline_.has_value() && (nodes_ & 1023) == 0 && Clock::now() > *deadline_) {
    node_limit_ = nodes_;
    return TightPackingOutcome::kAborted;
  }
  if (nodes_ % kProgressNodes == 0 && progress_) progress_(nodes_);
  const std::vector<int32_t>& rank = rank_;
  int64_t min_height = std::numeric_limits<int64_t>::max();
  bool any_unplaced = false;
  for (int32_t b : partition.blocks) {
    if (offset_[b] >= 0) continue;
    any_unplaced = true;
    min_height = std::min(min_height, min_offset_[b] + problem_.blocks[b].size);
  }
  if (!any_unplaced) return TightPackingOutcome::kFound;
  std::vector<Candidate> candidates;
  for (int32_t b : partition.blocks) {
    if (offset_[b] >= 0) continue;
    const int64_t offset = min_offset_[b];
    if (offset >= min_height) continue;  // dominated: leaves a fillable gap
    if (offset < last_offset || (offset == last_offset && rank[b] < last_rank)) continue;
    candidates.push_back({offset, rank[b], b});
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.offset != b.offset ? a.offset < b.offset : a.rank < b.rank;
  });
  int64_t overflow_offset = -1;
  for (const Candidate& candidate : candidates) {
    // Hatless pruning (see the header): nothing can raise this block's min
    // offset any more, and every later candidate would leave it behind.
    const bool hatless = unplaced_conflicts_[candidate.block] == 0;
    if (candidate.offset != overflow_offset) {
      overflow_offset = candidate.offset;
      FindOverflowingSections(partition, overflow_offset);
    }
    if (!QuickCheck(candidate.block, candidate.offset)) {
      if (hatless) break;
      continue;
    }
    const size_t offset_mark = offset_trail_.size();
    const size_t floor_mark = floor_trail_.size();
    const size_t section_min_mark = section_min_trail_.size();
    TightPackingOutcome outcome = TightPackingOutcome::kInfeasible;
    if (Place(candidate.block, candidate.offset)) {
      outcome = Decompose(partition, candidate.block, candidate.offset);
    }
    Undo(candidate.block, offset_mark, floor_mark, section_min_mark);
    overflow_offset = -1;  // the recursion reused overflowing_
    if (outcome != TightPackingOutcome::kInfeasible) return outcome;
    if (hatless) break;
  }
  return TightPackingOutcome::kInfeasible;
}

TightPackingOutcome TightPackingBranchAndBound::Decompose(const Partition& partition,
                                                          int32_t block, int64_t offset) {
  const int32_t first = sweep_.span_begin(block);
  const int32_t last = sweep_.span_end(block) - 1;
  std::vector<int32_t> cut_points;
  for (int32_t k = first; k < last; ++k) {
    if (--cuts_[k] == 0 && k >= partition.section_begin && k + 1 < partition.section_end) {
      cut_points.push_back(k + 1);
    }
  }
  TightPackingOutcome outcome = TightPackingOutcome::kFound;
  if (cut_points.empty()) {
    outcome = Search(partition, offset, rank_[block]);
  } else {
    cut_points.insert(cut_points.begin(), partition.section_begin);
    cut_points.push_back(partition.section_end);
    for (size_t i = 0; i + 1 < cut_points.size(); ++i) {
      Partition sub;
      sub.section_begin = cut_points[i];
      sub.section_end = cut_points[i + 1];
      for (int32_t b : partition.blocks) {
        if (offset_[b] >= 0) continue;
        if (sweep_.span_end(b) <= sub.section_begin || sub.section_end <= sweep_.span_begin(b)) {
          continue;
        }
        sub.blocks.push_back(b);
      }
      if (sub.blocks.empty()) continue;
      outcome = SolvePartition(sub);
      if (outcome != TightPackingOutcome::kFound) break;
    }
  }
  for (int32_t k = first; k < last; ++k) ++cuts_[k];
  return outcome;
}

}  // namespace hmo
