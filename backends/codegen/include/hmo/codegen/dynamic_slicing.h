#ifndef HMO_CODEGEN_DYNAMIC_SLICING_H_
#define HMO_CODEGEN_DYNAMIC_SLICING_H_

// Dynamic slices in generated code, one definition for every emitter
// (elemental, fused, in-place kernels, gather, GPU kernels):
//   - a start index as HLO defines it: the operand's value, read as signed or
//     unsigned by its element type, clamped to [0, dimension - slice size] so
//     the slice lies inside the array;
//   - when a dynamic-update-slice writes its array operand's buffer in place
//     (buffer assignment gave its result that very buffer), so only the
//     update region is written;
//   - when such an update can be computed straight into its place.

#include <cstdint>

#include "hmo/analysis/buffer_assignment.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/primitive_type.h"
#include "hmo/ir/shape.h"
#include "llvm/IR/IRBuilder.h"

namespace hmo::codegen {

// `raw`: the start operand's value (an integer of its element type `type`);
// `limit`: dimension - slice size (a negative one, a slice larger than the
// dimension, clamps to 0). Returns an i64.
llvm::Value* EmitClampedSliceStart(llvm::IRBuilderBase& b, llvm::Value* raw, PrimitiveType type,
                                   int64_t limit);

// Whether `dus` (a dynamic-update-slice with one scalar start per dimension)
// updates in place: `result` at `result_index` (the instruction itself, or
// the fusion whose output it is) holds exactly the slices of `updated` (its
// array operand, or the fusion operand feeding that fused parameter).
bool UpdatesInPlace(const HloInstruction& dus, const HloInstruction& result,
                    const ShapeIndex& result_index, const HloInstruction& updated,
                    const BufferAssignment& assignment);

// The dynamic-update-slice a fusion's output expression is (through
// bitcasts, which keep the bytes in place) when it updates a fused parameter
// in place: output `output_index` of `fusion` holds exactly the buffer of
// the fusion operand feeding that parameter. Null otherwise.
const HloInstruction* FusedInPlaceUpdate(const HloInstruction& fusion,
                                         const HloInstruction* expression,
                                         const ShapeIndex& output_index,
                                         const BufferAssignment& assignment);

// Whether a fused dynamic-update-slice `dus` of a fused parameter, updated in
// place, can compute its update element by element straight into the
// parameter's buffer, in any order and with the elements written
// concurrently: the update reads that parameter only at the position each
// of its elements is written to, through dynamic-slices of it with `dus`'s
// start indices and the update's dimensions, reaching the update through
// elementwise instructions of the update's dimensions alone (XLA:GPU's
// condition for in-place fusions). Any other read may see an element the
// update already wrote.
bool UpdateReadsItsBufferOnlyWhereItWrites(const HloInstruction& dus);

// Whether `value` (an instruction of a fused computation) is computed from
// `instruction` (itself included).
bool DependsOn(const HloInstruction& value, const HloInstruction& instruction);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_DYNAMIC_SLICING_H_
