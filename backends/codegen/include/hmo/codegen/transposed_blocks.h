#ifndef HMO_CODEGEN_TRANSPOSED_BLOCKS_H_
#define HMO_CODEGEN_TRANSPOSED_BLOCKS_H_

// The loop of an element-by-element kernel that reads an operand transposed
// (transposed_reads.h), in square blocks transposed in registers. A tiled
// loop (LoopTiling) keeps the cache lines it touches few, but still computes
// one element at a time: a strided load, the index arithmetic and a store
// per element. In blocks, each block's values are computed with the tiled
// dimension innermost, so that the transposed operand is read along its
// lines and the loop vectorizes, into a block on the stack; the block is
// then transposed in vector registers (a butterfly of shuffles) and written
// as whole vectors along the output's lines. Blocks the output's end clips
// run element by element.

#include <cstdint>

#include "absl/status/status.h"
#include "hmo/codegen/element_generator.h"
#include "hmo/codegen/ir_array.h"
#include "hmo/codegen/kernel_emit_context.h"
#include "hmo/codegen/loop_emitter.h"

namespace hmo::codegen {

// Indices of the tiled dimension and of the output's most-minor dimension
// per block.
inline constexpr int64_t kTransposedBlock = 16;

// Whether EmitTransposedBlocks emits the loop over `output` (the kernel's
// output array) tiled as `tiling`: a kernel whose loop iterations one thread
// runs in order (not a GPU's), that only moves elements (a copy, transpose
// or layout change, possibly fused with bitcasts, slices and broadcasts: no
// arithmetic, which keeps the block's loop from vectorizing), an element
// type stored in 16 or 32 bits, and both tiled dimensions of at least
// kTransposedBlock indices.
bool CanEmitTransposedBlocks(const KernelEmitContext& context, const IrArray& output,
                             const LoopTiling& tiling);

// Writes generator(index) at every index of `output`, block by block (the
// blocks through KernelEmitContext::EmitOutputLoopNest: a partitioned
// kernel's part emits its share of them). Precondition:
// CanEmitTransposedBlocks.
absl::Status EmitTransposedBlocks(KernelEmitContext& context, const IrArray& output,
                                  const ElementGenerator& generator, const LoopTiling& tiling);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_TRANSPOSED_BLOCKS_H_
