#ifndef HMO_IR_DOT_DIMENSIONS_H_
#define HMO_IR_DOT_DIMENSIONS_H_

// The free dimensions of a dot operand: those neither batch nor
// contracting (DotDimensionNumbers), which make up the dot's output after
// the batch dimensions (lhs free dims, then rhs free dims).

#include <cstdint>
#include <vector>

namespace hmo {

// The dimensions of a rank-`rank` dot operand in neither `batch` nor
// `contracting`, increasing.
std::vector<int64_t> DotFreeDimensions(int64_t rank, const std::vector<int64_t>& batch,
                                       const std::vector<int64_t>& contracting);

}  // namespace hmo

#endif  // HMO_IR_DOT_DIMENSIONS_H_
