#ifndef HMO_PLUGINS_SCHEDULER_CORE_PEAK_TREE_H_
#define HMO_PLUGINS_SCHEDULER_CORE_PEAK_TREE_H_

// The live-byte profile of an order as a segment tree: point updates, and the
// maximum of any range together with how many steps reach it, in O(log n).
// ScheduleImprover compares candidate moves by (peak, steps at the peak)
// without walking the whole profile.

#include <cstdint>
#include <limits>
#include <vector>

namespace hmo::scheduler {

// A maximum and the number of steps that reach it.
struct PeakCount {
  int64_t peak = std::numeric_limits<int64_t>::min();
  int64_t count = 0;

  static PeakCount Of(int64_t bytes) { return {bytes, 1}; }
  // The combination of two disjoint ranges.
  friend PeakCount Combine(PeakCount a, PeakCount b) {
    if (a.peak != b.peak) return a.peak > b.peak ? a : b;
    return {a.peak, a.count + b.count};
  }
  // Lower peak first, then fewer steps at the peak.
  friend bool operator<(PeakCount a, PeakCount b) {
    return a.peak != b.peak ? a.peak < b.peak : a.count < b.count;
  }
};

class PeakTree {
 public:
  explicit PeakTree(const std::vector<int64_t>& values) { Reset(values); }

  void Reset(const std::vector<int64_t>& values) {
    size_ = static_cast<int>(values.size());
    leaves_ = 1;
    while (leaves_ < size_) leaves_ *= 2;
    nodes_.assign(2 * leaves_, PeakCount{});
    for (int i = 0; i < size_; ++i) nodes_[leaves_ + i] = PeakCount::Of(values[i]);
    for (int i = leaves_ - 1; i >= 1; --i) nodes_[i] = Combine(nodes_[2 * i], nodes_[2 * i + 1]);
  }

  int size() const { return size_; }
  int64_t value(int i) const { return nodes_[leaves_ + i].peak; }

  void Set(int i, int64_t bytes) {
    int node = leaves_ + i;
    nodes_[node] = PeakCount::Of(bytes);
    for (node /= 2; node >= 1; node /= 2) {
      nodes_[node] = Combine(nodes_[2 * node], nodes_[2 * node + 1]);
    }
  }

  // The maximum over [begin, end) and how often it occurs; empty ranges give
  // the neutral PeakCount.
  PeakCount Query(int begin, int end) const {
    PeakCount left, right;
    for (int l = begin + leaves_, r = end + leaves_; l < r; l /= 2, r /= 2) {
      if (l & 1) left = Combine(left, nodes_[l++]);
      if (r & 1) right = Combine(nodes_[--r], right);
    }
    return Combine(left, right);
  }
  PeakCount All() const { return size_ == 0 ? PeakCount{} : nodes_[1]; }

  // The first step at or after `from` whose bytes are at least `bytes`, or -1.
  int FindFirstAtLeast(int from, int64_t bytes) const {
    if (from >= size_) return -1;
    return FindFrom(1, 0, leaves_, from, bytes);
  }

 private:
  int FindFrom(int node, int lo, int hi, int from, int64_t bytes) const {
    if (hi <= from || nodes_[node].peak < bytes) return -1;
    if (hi - lo == 1) return lo < size_ ? lo : -1;
    int mid = (lo + hi) / 2;
    int found = FindFrom(2 * node, lo, mid, from, bytes);
    return found >= 0 ? found : FindFrom(2 * node + 1, mid, hi, from, bytes);
  }

  int size_ = 0;
  int leaves_ = 1;
  std::vector<PeakCount> nodes_;
};

}  // namespace hmo::scheduler

#endif  // HMO_PLUGINS_SCHEDULER_CORE_PEAK_TREE_H_
