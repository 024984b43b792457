#ifndef HMO_ANALYSIS_TIGHT_PACKING_GREEDY_H_
#define HMO_ANALYSIS_TIGHT_PACKING_GREEDY_H_

// Greedy placements for the tight packer: blocks placed one at a time, in a
// given order, at the gap BestFitPlacer picks (XLA's best fit or lowest
// offset), and the orders it tries.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "hmo/analysis/best_fit_placer.h"
#include "hmo/analysis/heap_packing_problem.h"

namespace hmo {

// Places the blocks in `order` (a permutation of the block indices; size-0
// blocks go to 0) and returns the height; `offsets` receives the placement.
int64_t PlaceBlocksInOrder(const HeapPackingProblem& problem, absl::Span<const int32_t> order,
                           ChunkPlacement placement, std::vector<int64_t>& offsets);

// Per-block facts the orders are built from.
struct BlockOrderKeys {
  std::vector<int64_t> size;
  std::vector<int64_t> live_steps;   // time steps covered by the lifetimes
  std::vector<int64_t> first_start;  // earliest start
  std::vector<int64_t> last_end;     // latest end
  std::vector<int64_t> peak_total;   // most bytes live at one step during the block's lifetimes
};
BlockOrderKeys ComputeBlockOrderKeys(const HeapPackingProblem& problem);

// A named block order.
struct BlockOrder {
  std::string name;
  std::vector<int32_t> order;
};

// The deterministic orders the tight packer starts from: size, area, live
// steps, peak total (MiniMalloc's "T"), start time and end time, each
// descending with the others as tie breaks.
std::vector<BlockOrder> TightPackingStartOrders(const BlockOrderKeys& keys);

// Orders that stay close to XLA's size order but break its worst habit on
// real instances (long-lived small blocks end up stacked on top of
// everything, above the peak), used by the packing improver:
//
// Size order: larger first, then longer lifetimes, then lower index (XLA's
// best-fit order, and the tight packer's "size" start order).
std::vector<int32_t> SizeOrder(const BlockOrderKeys& keys);

// Size classes: blocks grouped by floor(log_base(size)), larger classes first;
// inside a class longer lifetimes first (then larger, then lower index).
// `base` > 1.
std::vector<int32_t> SizeClassOrder(const BlockOrderKeys& keys, double base);

// Descending size * live_steps^alpha (alpha in [0, 1]: 0 is the size order,
// 1 the area order), ties by size, then lower index.
std::vector<int32_t> SizeLengthOrder(const BlockOrderKeys& keys, double alpha);

// Blocks live for at least `fraction` of the whole time span first, then the
// rest; each part in size order (longer first on equal sizes, then lower
// index).
std::vector<int32_t> LongLivedFirstOrder(const BlockOrderKeys& keys, double fraction);

}  // namespace hmo

#endif  // HMO_ANALYSIS_TIGHT_PACKING_GREEDY_H_
