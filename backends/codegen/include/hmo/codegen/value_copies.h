#ifndef HMO_CODEGEN_VALUE_COPIES_H_
#define HMO_CODEGEN_VALUE_COPIES_H_

// Which bytes must move so that `to` at `to_index` holds the value of `from`
// at `from_index` (tuple, get-tuple-element, bitcast, call parameters and
// results, memory-space moves): alias analysis usually puts both in the same
// slice, and then nothing moves. Shared by the CPU code generator and the
// GPU thunk planner.

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/ir/hlo_instruction.h"

namespace hmo::codegen {

// Calls `copy(src_index, dst_index, bytes)` for every non-empty array leaf
// of `to`'s subshape at `to_index` whose slices differ from `from`'s at the
// corresponding index (indices are full: from_index / to_index + the leaf's
// relative index). A leaf of `to` without a slice is an InternalError; the
// first error stops the walk.
absl::Status ForEachLeafNeedingCopy(
    const BufferAssignment& assignment, const HloInstruction& from, const ShapeIndex& from_index,
    const HloInstruction& to, const ShapeIndex& to_index,
    const std::function<absl::Status(const ShapeIndex& src_index, const ShapeIndex& dst_index,
                                     int64_t bytes)>& copy);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_VALUE_COPIES_H_
