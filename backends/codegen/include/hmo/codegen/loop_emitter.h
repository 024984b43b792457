#ifndef HMO_CODEGEN_LOOP_EMITTER_H_
#define HMO_CODEGEN_LOOP_EMITTER_H_

// Loops in generated code: a counted loop, and a nest of counted loops over
// every index of an array shape with the most-minor dimension innermost
// (contiguous accesses in the innermost loop, which the vectorizer wants).
// Induction variables are i64 starting at 0 (EmitForLoop: at `start`).
// The builder is left positioned after the loop(s).

#include <functional>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "hmo/codegen/ir_array.h"
#include "hmo/ir/shape.h"
#include "llvm/IR/IRBuilder.h"

namespace hmo::codegen {

// for (iv = start; iv < end; iv += step) body(iv). `start`, `end` are i64;
// step > 0. The body may create blocks; it must leave the builder in the
// block that continues to the next iteration.
absl::Status EmitForLoop(llvm::IRBuilderBase& b, std::string_view name, llvm::Value* start,
                         llvm::Value* end, int64_t step,
                         const std::function<absl::Status(llvm::Value* iv)>& body);

// The dimension of `shape` (an array; its layout or the default) that is
// most minor in memory among those of more than one index, or -1 when there
// is none: the dimension an element-by-element loop runs innermost.
int64_t MostMinorDimensionOfMoreThanOneIndex(const Shape& shape);

// A loop nest that visits `dimension` and the most-minor dimension of more
// than one index in tiles of `rows` x `columns` indices (the last ones
// clipped): the tiles in the dimensions' places in the nest, then within
// each tile `dimension`, then the most-minor one innermost. For kernels
// whose output's minor dimension reads an operand with a large stride
// (transposed_reads.h). Nothing changes when `dimension` is the most-minor
// one or has one index.
struct LoopTiling {
  int64_t dimension = 0;
  int64_t rows = 1;
  int64_t columns = 1;
};

// Calls body(index) for every index of `shape` (an array shape; its layout,
// or the default, orders the loops; `tiling`, when given, tiles two of
// them). A shape with no elements emits nothing; a scalar calls body once
// with an empty index and no loop.
absl::Status EmitLoopNest(llvm::IRBuilderBase& b, std::string_view name, const Shape& shape,
                          const std::function<absl::Status(const IrArray::Index& index)>& body,
                          const LoopTiling* tiling = nullptr);

// Part `part` of `parts` (i64 values, 0 <= part < parts) of EmitLoopNest's
// iterations: the outermost loop whose dimension has more than one index
// runs over [size*part/parts, size*(part+1)/parts) (a tiled one over its
// tiles so), the loops inside it over everything. The parts together visit
// every index once.
absl::Status EmitLoopNestPart(llvm::IRBuilderBase& b, std::string_view name, const Shape& shape,
                              llvm::Value* part, llvm::Value* parts,
                              const std::function<absl::Status(const IrArray::Index& index)>& body,
                              const LoopTiling* tiling = nullptr);

// [count*part/parts, count*(part+1)/parts) as i64 values.
std::pair<llvm::Value*, llvm::Value*> EmitPartRange(llvm::IRBuilderBase& b, int64_t count,
                                                    llvm::Value* part, llvm::Value* parts);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_LOOP_EMITTER_H_
