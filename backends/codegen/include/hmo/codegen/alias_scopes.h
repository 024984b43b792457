#ifndef HMO_CODEGEN_ALIAS_SCOPES_H_
#define HMO_CODEGEN_ALIAS_SCOPES_H_

// Scoped-alias metadata for a kernel's buffers: each output gets its own
// scope, and every access whose slices share no byte with an output's is
// marked as not aliasing it, so LLVM hoists loads of other buffers out of
// the loops and its vectorizer needs no runtime overlap checks. An output
// computed in place of an input (their slices overlap) is not marked
// against that input; distinct slices of one allocation (the temp arena)
// are distinct buffers.

#include <set>
#include <vector>

#include "hmo/codegen/ir_array.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/ir/hlo_instruction.h"
#include "llvm/IR/LLVMContext.h"

namespace hmo::codegen {

// The slices an operand array is read from: none for a constant (read from
// its read-only global), else the instruction's slices at `index`.
std::set<BufferAssignment::Slice> ReadSlices(const BufferAssignment& assignment,
                                             const HloInstruction& instruction,
                                             const ShapeIndex& index = {});

// Whether some slice of `a` shares a byte with some slice of `b`.
bool AnyOverlap(const std::set<BufferAssignment::Slice>& a,
                const std::set<BufferAssignment::Slice>& b);

// Whether a byte `instruction` writes (its array outputs, a tuple's leaves)
// may also be one it reads (its operands' slices): true as well when an
// output has no slice or an operand is not an array (nothing is known).
// A kernel for which this is false may write its outputs in any order.
bool OutputsOverlapOperands(const BufferAssignment& assignment, const HloInstruction& instruction);

// Annotates `outputs` (written through `output_slices`) and `inputs` (read
// through `input_slices`; none for a constant): each access is marked as not
// aliasing the outputs it shares no byte with. Returns false, annotating
// nothing, when an output has no slice (nothing is known about it).
bool AnnotateDisjointAccesses(llvm::LLVMContext& context, std::vector<IrArray*> outputs,
                              const std::vector<std::set<BufferAssignment::Slice>>& output_slices,
                              std::vector<IrArray*> inputs,
                              const std::vector<std::set<BufferAssignment::Slice>>& input_slices);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_ALIAS_SCOPES_H_
