#ifndef HMO_CODEGEN_TRANSPOSED_READS_H_
#define HMO_CODEGEN_TRANSPOSED_READS_H_

// Element-by-element kernels (an elementwise instruction, a copy or
// transpose, a loop fusion) loop over their output with its most-minor
// dimension innermost. An operand read through a transpose or a layout
// change is then read with a large stride: every element a new cache line
// (and often a new page), the kernel several times slower than its bytes.
// The loop tiles instead (loop_emitter.h: LoopTiling): the output's
// most-minor dimension and the dimension along which such an operand is
// contiguous, so that a tile reads a few of the operand's lines along their
// length while it writes short runs of the output's lines.

#include <cstdint>
#include <optional>

#include "hmo/codegen/loop_emitter.h"
#include "hmo/ir/hlo_instruction.h"

namespace hmo::codegen {

// The tiling of `instruction`'s loop over its (array) output when a large
// operand of it is read contiguously along an output dimension while the
// output's own most-minor dimension of more than one index reads it with a
// large stride; none when no operand is read so. Follows each index from the
// output to the operands (of a fusion: through the fused computation)
// through elementwise instructions, copies, transposes, broadcasts,
// reshapes, bitcasts and slices; an operand read only through other
// instructions (gathers, dynamic slices, reductions, ...) does not count.
// Only decides the order of a loop whose iterations are independent: any
// answer gives the same results.
std::optional<LoopTiling> TransposedReadTiling(const HloInstruction& instruction);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_TRANSPOSED_READS_H_
