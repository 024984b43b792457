// Whether a comparator ordered a row consistently.
//
// XLA defines sort and TopK only for comparators that are a strict weak order
// on the values compared; for any other comparator the result is whatever
// the implementation's algorithm produces, and hmo's backends (a merge sort
// on the CPU, an insertion sort per row on the GPU) legitimately disagree.
// The reference evaluator therefore refuses to give such a result instead of
// giving one of them.
//
// Given the order a stable sort produced, `less` is a strict weak order on
// the row exactly when, with each element's class the number of strict steps
// less(s[k], s[k+1]) before it: no element is less than itself, and for
// every pair i < j, less(s[i], s[j]) holds iff their classes differ and
// less(s[j], s[i]) never holds. Checking every pair is quadratic, so it
// draws on a budget of comparator calls shared by every row of one
// instruction; rows past the budget get the linear part of the check (each
// element against itself and its neighbour), which a sort of a consistent
// comparator always passes.

#ifndef HMO_FRAMEWORK_SRC_EVAL_STRICT_WEAK_ORDER_H_
#define HMO_FRAMEWORK_SRC_EVAL_STRICT_WEAK_ORDER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace hmo::eval_internal {

// Two positions of the sorted row (indices into `sorted`) the comparator
// answers inconsistently for, and how.
struct OrderViolation {
  int64_t first = 0;
  int64_t second = 0;
  std::string reason;
};

// Comparator calls an instruction's rows may spend on the quadratic check.
inline constexpr int64_t kStrictWeakOrderCheckBudget = int64_t{1} << 16;

// `sorted` holds the original positions in the order a stable sort put them;
// less(x, y) compares original positions x and y. `budget` is decremented by
// the calls the quadratic check makes.
std::optional<OrderViolation> FindStrictWeakOrderViolation(
    absl::Span<const int64_t> sorted, const std::function<bool(int64_t, int64_t)>& less,
    int64_t& budget);

// FindStrictWeakOrderViolation as the evaluator's answer: FailedPrecondition
// naming the instruction, its comparator, the row (`describe_row`) and the
// two elements' original positions, or OK.
absl::Status CheckStrictWeakOrder(absl::string_view instruction, absl::string_view comparator,
                                  absl::FunctionRef<std::string()> describe_row,
                                  absl::Span<const int64_t> sorted,
                                  const std::function<bool(int64_t, int64_t)>& less,
                                  int64_t& budget);

}  // namespace hmo::eval_internal

#endif  // HMO_FRAMEWORK_SRC_EVAL_STRICT_WEAK_ORDER_H_
