#include "hmo/analysis/buffer_interval_tree.h"

#include <algorithm>
#include <tuple>

namespace hmo {
namespace {

// splitmix64: a fixed, well-mixed priority per insertion.
uint64_t MixPriority(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

bool BufferIntervalTree::KeyLess(const BufferIntervalTreeNode& a,
                                 const BufferIntervalTreeNode& b) const {
  return std::tie(a.start, a.end, a.chunk.offset) < std::tie(b.start, b.end, b.chunk.offset);
}

void BufferIntervalTree::Update(int32_t node) {
  Node& n = nodes_[node];
  n.subtree_end = n.value.end;
  if (n.left >= 0) n.subtree_end = std::max(n.subtree_end, nodes_[n.left].subtree_end);
  if (n.right >= 0) n.subtree_end = std::max(n.subtree_end, nodes_[n.right].subtree_end);
}

void BufferIntervalTree::Split(int32_t tree, const BufferIntervalTreeNode& pivot, bool or_equal,
                               int32_t& left, int32_t& right) {
  if (tree < 0) {
    left = right = -1;
    return;
  }
  const BufferIntervalTreeNode& value = nodes_[tree].value;
  const bool goes_left = or_equal ? !KeyLess(pivot, value) : KeyLess(value, pivot);
  if (goes_left) {
    int32_t sub_left, sub_right;
    Split(nodes_[tree].right, pivot, or_equal, sub_left, sub_right);
    nodes_[tree].right = sub_left;
    Update(tree);
    left = tree;
    right = sub_right;
  } else {
    int32_t sub_left, sub_right;
    Split(nodes_[tree].left, pivot, or_equal, sub_left, sub_right);
    nodes_[tree].left = sub_right;
    Update(tree);
    left = sub_left;
    right = tree;
  }
}

int32_t BufferIntervalTree::Merge(int32_t left, int32_t right) {
  if (left < 0) return right;
  if (right < 0) return left;
  if (nodes_[left].priority > nodes_[right].priority) {
    nodes_[left].right = Merge(nodes_[left].right, right);
    Update(left);
    return left;
  }
  nodes_[right].left = Merge(left, nodes_[right].left);
  Update(right);
  return right;
}

int32_t BufferIntervalTree::NewNode(const BufferIntervalTreeNode& value) {
  Node node;
  node.value = value;
  node.subtree_end = value.end;
  node.priority = MixPriority(insertions_++);
  if (!free_nodes_.empty()) {
    const int32_t index = free_nodes_.back();
    free_nodes_.pop_back();
    nodes_[index] = node;
    return index;
  }
  nodes_.push_back(node);
  return static_cast<int32_t>(nodes_.size() - 1);
}

void BufferIntervalTree::Add(int64_t start, int64_t end, const HeapChunk& chunk) {
  const BufferIntervalTreeNode value{start, end, chunk};
  const int32_t node = NewNode(value);
  int32_t left, right;
  Split(root_, value, /*or_equal=*/false, left, right);
  root_ = Merge(Merge(left, node), right);
  ++size_;
}

bool BufferIntervalTree::Remove(int64_t start, int64_t end, const HeapChunk& chunk) {
  const BufferIntervalTreeNode key{start, end, HeapChunk::FromOffsetSize(chunk.offset, 0)};
  int32_t less, rest;
  Split(root_, key, /*or_equal=*/false, less, rest);
  int32_t equal, greater;
  Split(rest, key, /*or_equal=*/true, equal, greater);
  bool removed = false;
  if (equal >= 0) {
    const int32_t victim = equal;
    equal = Merge(nodes_[victim].left, nodes_[victim].right);
    free_nodes_.push_back(victim);
    --size_;
    removed = true;
  }
  root_ = Merge(Merge(less, equal), greater);
  return removed;
}

template <typename Fn>
void BufferIntervalTree::Visit(int64_t start, int64_t end, Fn&& fn) const {
  // In-order walk that prunes subtrees ending before `start` and right
  // subtrees starting after `end`.
  stack_.clear();
  int32_t current = root_;
  while (current >= 0 || !stack_.empty()) {
    while (current >= 0) {
      if (nodes_[current].subtree_end < start) {
        current = -1;
        break;
      }
      stack_.push_back(current);
      current = nodes_[current].left;
    }
    if (stack_.empty()) break;
    const int32_t top = stack_.back();
    stack_.pop_back();
    const BufferIntervalTreeNode& value = nodes_[top].value;
    if (value.start > end) {
      // This node and everything after it in order start too late; the
      // remaining stack entries are ancestors with even larger keys.
      stack_.clear();
      break;
    }
    if (value.end >= start) fn(value);
    current = nodes_[top].right;
  }
}

void BufferIntervalTree::AppendChunksOverlappingInTime(int64_t start, int64_t end,
                                                       std::vector<HeapChunk>& out) const {
  Visit(start, end, [&out](const BufferIntervalTreeNode& node) { out.push_back(node.chunk); });
}

std::vector<HeapChunk> BufferIntervalTree::ChunksOverlappingInTime(int64_t start,
                                                                   int64_t end) const {
  std::vector<HeapChunk> chunks;
  AppendChunksOverlappingInTime(start, end, chunks);
  return chunks;
}

int64_t BufferIntervalTree::NumChunksOverlappingInTime(int64_t start, int64_t end) const {
  int64_t count = 0;
  Visit(start, end, [&count](const BufferIntervalTreeNode&) { ++count; });
  return count;
}

std::vector<int64_t> BufferIntervalTree::MemoryUsedInInterval(int64_t start, int64_t end) const {
  if (end < start) return {};
  const int64_t steps = end - start + 1;
  std::vector<int64_t> delta(steps + 1, 0);
  Visit(start, end, [&](const BufferIntervalTreeNode& node) {
    delta[std::max(node.start, start) - start] += node.chunk.size;
    delta[std::min(node.end, end) - start + 1] -= node.chunk.size;
  });
  std::vector<int64_t> used(steps, 0);
  int64_t running = 0;
  for (int64_t i = 0; i < steps; ++i) {
    running += delta[i];
    used[i] = running;
  }
  return used;
}

int64_t BufferIntervalTree::HeapSizeInInterval(int64_t start, int64_t end) const {
  int64_t heap_size = 0;
  Visit(start, end, [&heap_size](const BufferIntervalTreeNode& node) {
    heap_size = std::max(heap_size, node.chunk.chunk_end());
  });
  return heap_size;
}

void BufferIntervalTree::Clear() {
  nodes_.clear();
  free_nodes_.clear();
  root_ = -1;
  size_ = 0;
  insertions_ = 0;
}

}  // namespace hmo
