#ifndef HMO_ANALYSIS_FLOP_COUNT_H_
#define HMO_ANALYSIS_FLOP_COUNT_H_

// Floating-point operations an instruction performs, counted as XLA's
// HloCostAnalysis counts them, for the cost of computing a value again
// (rematerialization) and the size of a step:
//   elementwise ops     one per output element (transcendentals included:
//                       XLA counts them apart, here they add one each);
//   dot                 2 x output elements x contracted elements;
//   convolution         2 x output elements x kernel elements per output
//                       feature (divided by the feature groups' share);
//   reduce              one per reduced input element (input - output
//                       elements, per reduced operand);
//   reduce-window       output elements x window elements;
//   select-and-scatter  source elements x window elements (the select)
//                       plus the source elements (the scatter);
//   scatter             update elements; sort: n log2 n compares per row;
//   fusion / call       the sum of the instructions they run;
//   while               condition + body, once (the trip count is a runtime
//                       fact); conditional: its most expensive branch;
//   everything else     0 (data movement: copies, slices, broadcasts, ...).

#include <cstdint>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"

namespace hmo {

// One evaluation of `instruction`.
int64_t FlopCount(const HloInstruction& instruction);

// The sum over `computation`'s instructions.
int64_t FlopCount(const HloComputation& computation);

}  // namespace hmo

#endif  // HMO_ANALYSIS_FLOP_COUNT_H_
