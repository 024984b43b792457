#ifndef HMO_ANALYSIS_BUFFER_INTERVAL_TREE_H_
#define HMO_ANALYSIS_BUFFER_INTERVAL_TREE_H_

// BufferIntervalTree: the placed buffers of a heap, queried by time. Each node
// is one buffer's live interval [start, end] (both ends inclusive, in the heap
// algorithm's event-counter time) and the chunk it occupies.
//
// A treap keyed by (start, end, chunk.offset) whose nodes also carry the
// largest `end` of their subtree, so an overlap query skips every subtree
// that ends before the queried interval and every right subtree that starts
// after it: O(log n + k) expected for k results. Priorities come from a fixed
// hash of the insertion count, so the shape is the same on every run; results
// never depend on the shape.

#include <cstdint>
#include <functional>
#include <vector>

#include "hmo/analysis/heap_chunk.h"

namespace hmo {

struct BufferIntervalTreeNode {
  int64_t start = 0;
  int64_t end = 0;  // inclusive
  HeapChunk chunk;
};

class BufferIntervalTree {
 public:
  // Adds a buffer live during [start, end] (inclusive) that occupies `chunk`.
  void Add(int64_t start, int64_t end, const HeapChunk& chunk);

  // Removes one node with this start, end and chunk offset. Returns whether a
  // node was removed.
  bool Remove(int64_t start, int64_t end, const HeapChunk& chunk);

  // Appends to `out` the chunks of the nodes overlapping [start, end]; the
  // allocation-free form of ChunksOverlappingInTime for hot loops.
  void AppendChunksOverlappingInTime(int64_t start, int64_t end, std::vector<HeapChunk>& out) const;

  // The chunks of the nodes overlapping [start, end], in (start, end, offset)
  // order.
  std::vector<HeapChunk> ChunksOverlappingInTime(int64_t start, int64_t end) const;

  // How many nodes overlap [start, end].
  int64_t NumChunksOverlappingInTime(int64_t start, int64_t end) const;

  // Element i is the number of bytes occupied at time start + i, for every
  // time in [start, end] (a vector of end - start + 1 entries; empty when
  // end < start).
  std::vector<int64_t> MemoryUsedInInterval(int64_t start, int64_t end) const;

  // The largest chunk end among nodes overlapping [start, end]; 0 if none.
  int64_t HeapSizeInInterval(int64_t start, int64_t end) const;

  // Number of nodes in the tree.
  int64_t size() const { return size_; }

  // Removes every node.
  void Clear();

 private:
  struct Node {
    BufferIntervalTreeNode value;
    int64_t subtree_end = 0;
    uint64_t priority = 0;
    int32_t left = -1;
    int32_t right = -1;
  };

  bool KeyLess(const BufferIntervalTreeNode& a, const BufferIntervalTreeNode& b) const;
  void Update(int32_t node);
  // Splits `tree` into keys < pivot (or <= pivot when `or_equal`) and the rest.
  void Split(int32_t tree, const BufferIntervalTreeNode& pivot, bool or_equal, int32_t& left,
             int32_t& right);
  int32_t Merge(int32_t left, int32_t right);
  int32_t NewNode(const BufferIntervalTreeNode& value);

  template <typename Fn>
  void Visit(int64_t start, int64_t end, Fn&& fn) const;

  std::vector<Node> nodes_;
  std::vector<int32_t> free_nodes_;
  int32_t root_ = -1;
  int64_t size_ = 0;
  uint64_t insertions_ = 0;
  mutable std::vector<int32_t> stack_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_BUFFER_INTERVAL_TREE_H_
