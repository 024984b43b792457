#include "hmo/codegen/value_copies.h"

#include <set>

#include "hmo/ir/shape.h"

namespace hmo::codegen {

absl::Status ForEachLeafNeedingCopy(
    const BufferAssignment& assignment, const HloInstruction& from, const ShapeIndex& from_index,
    const HloInstruction& to, const ShapeIndex& to_index,
    const std::function<absl::Status(const ShapeIndex& src_index, const ShapeIndex& dst_index,
                                     int64_t bytes)>& copy) {
  const Shape& shape = ShapeUtil::GetSubshape(to.shape(), to_index);
  absl::Status status;
  ShapeUtil::ForEachLeafShape(shape, [&](const Shape& leaf, const ShapeIndex& relative) {
    if (!status.ok() || !leaf.IsArray()) return;
    const int64_t bytes = ShapeUtil::ByteSizeOf(leaf);
    if (bytes == 0) return;
    ShapeIndex src_index = from_index, dst_index = to_index;
    src_index.insert(src_index.end(), relative.begin(), relative.end());
    dst_index.insert(dst_index.end(), relative.begin(), relative.end());
    const std::set<BufferAssignment::Slice> src_slices = assignment.GetAllSlices(&from, src_index);
    const std::set<BufferAssignment::Slice> dst_slices = assignment.GetAllSlices(&to, dst_index);
    if (!src_slices.empty() && src_slices == dst_slices) return;
    if (dst_slices.empty()) {
      status = absl::InternalError("codegen: " + to.name() + " at " +
                                   ShapeIndexToString(dst_index) + " has no buffer slice");
      return;
    }
    status = copy(src_index, dst_index, bytes);
  });
  return status;
}

}  // namespace hmo::codegen
