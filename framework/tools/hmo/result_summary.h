#ifndef HMO_TOOLS_HMO_RESULT_SUMMARY_H_
#define HMO_TOOLS_HMO_RESULT_SUMMARY_H_

// A short text picture of an executed module's result for the `hmo run
// --execute` summary: per array leaf its tuple index, shape, first values and
// the sum of all its values, so two runs can be compared at a glance.

#include <string>

#include "hmo/ir/literal.h"

namespace hmo::cli {

// One line per array leaf, each starting with `indent`, e.g.
//   output {1} f32[2,3]: 0.5, -0.25, 0.125, 1, ... sum 2.375
// Integer and pred sums are exact integers; float sums are accumulated in
// double. At most `max_values` values are shown.
std::string DescribeResultLeaves(const Literal& result, std::string_view indent,
                                 int max_values = 4);

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_RESULT_SUMMARY_H_
