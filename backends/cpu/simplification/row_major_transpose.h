#ifndef HMO_BACKENDS_CPU_SIMPLIFICATION_ROW_MAJOR_TRANSPOSE_H_
#define HMO_BACKENDS_CPU_SIMPLIFICATION_ROW_MAJOR_TRANSPOSE_H_

// The transposes the canonicalization passes insert: an operand reordered so
// that a library call (GEMM, convolution) reads it as dense row-major data.

#include <cstdint>
#include <vector>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"

namespace hmo::cpu {

// Adds to `computation` a transpose of `operand` whose dimension i is the
// operand's dimension order[i], laid out row-major; returns it.
HloInstruction* AddRowMajorTranspose(HloComputation& computation, HloInstruction* operand,
                                     const std::vector<int64_t>& order);

// Whether `shape`'s layout (or its absence) is the row-major one.
bool IsRowMajorShape(const Shape& shape);

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_SIMPLIFICATION_ROW_MAJOR_TRANSPOSE_H_
