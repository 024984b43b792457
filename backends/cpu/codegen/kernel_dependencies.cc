#include "cpu/codegen/kernel_dependencies.h"

#include <cstdint>
#include <set>
#include <vector>

#include "hmo/codegen/alias_scopes.h"
#include "hmo/ir/shape.h"

namespace hmo::cpu {
namespace {

using Slices = std::set<BufferAssignment::Slice>;

// The slices of every array leaf of `instruction`'s value.
void AddLeafSlices(const BufferAssignment& assignment, const HloInstruction& instruction,
                   Slices& slices) {
  ShapeUtil::ForEachSubshape(instruction.shape(), [&](const Shape& shape, const ShapeIndex& index) {
    if (!shape.IsArray()) return;
    const Slices leaf = assignment.GetAllSlices(&instruction, index);
    slices.insert(leaf.begin(), leaf.end());
  });
}

}  // namespace

std::vector<std::vector<int64_t>> KernelPredecessors(
    const BufferAssignment& assignment, const std::vector<const HloInstruction*>& kernels) {
  const int64_t count = static_cast<int64_t>(kernels.size());
  std::vector<Slices> reads(count), writes(count);
  for (int64_t k = 0; k < count; ++k) {
    for (const HloInstruction* operand : kernels[k]->operands())
      AddLeafSlices(assignment, *operand, reads[k]);
    AddLeafSlices(assignment, *kernels[k], writes[k]);
  }
  // ancestors[j]: a bitset of the kernels j waits for, directly or not.
  const int64_t words = (count + 63) / 64;
  std::vector<std::vector<uint64_t>> ancestors(count, std::vector<uint64_t>(words, 0));
  const auto has = [&](const std::vector<uint64_t>& set, int64_t i) {
    return (set[i / 64] >> (i % 64)) & 1;
  };
  std::vector<std::vector<int64_t>> predecessors(count);
  for (int64_t j = 0; j < count; ++j) {
    // Latest first: a later conflicting kernel usually covers the earlier.
    for (int64_t i = j - 1; i >= 0; --i) {
      if (has(ancestors[j], i)) continue;
      const bool conflict = codegen::AnyOverlap(writes[i], reads[j]) ||
                            codegen::AnyOverlap(writes[i], writes[j]) ||
                            codegen::AnyOverlap(reads[i], writes[j]);
      if (!conflict) continue;
      predecessors[j].push_back(i);
      ancestors[j][i / 64] |= uint64_t{1} << (i % 64);
      for (int64_t w = 0; w < words; ++w) ancestors[j][w] |= ancestors[i][w];
    }
  }
  return predecessors;
}

}  // namespace hmo::cpu
