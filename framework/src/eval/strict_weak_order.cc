// Strict-weak-order check of a sorted row (strict_weak_order.h).

#include "strict_weak_order.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace hmo::eval_internal {

std::optional<OrderViolation> FindStrictWeakOrderViolation(
    absl::Span<const int64_t> sorted, const std::function<bool(int64_t, int64_t)>& less,
    int64_t& budget) {
  const int64_t n = static_cast<int64_t>(sorted.size());
  std::vector<int64_t> order_class(sorted.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    if (less(sorted[i], sorted[i])) {
      return OrderViolation{i, i, "an element is less than itself"};
    }
    if (i + 1 == n) break;
    if (less(sorted[i + 1], sorted[i])) {
      return OrderViolation{i + 1, i, "a stable sort left an element after one it is less than"};
    }
    order_class[i + 1] = order_class[i] + (less(sorted[i], sorted[i + 1]) ? 1 : 0);
  }
  // Neighbours were checked above; the remaining pairs cost two calls each.
  const int64_t remaining_pairs = n < 3 ? 0 : (n - 1) * (n - 2) / 2;
  if (2 * remaining_pairs > budget) return std::nullopt;
  budget -= 2 * remaining_pairs;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 2; j < n; ++j) {
      if (less(sorted[j], sorted[i])) {
        return OrderViolation{j, i, "an element is less than one a stable sort put before it"};
      }
      const bool ordered = order_class[i] != order_class[j];
      if (less(sorted[i], sorted[j]) != ordered) {
        return OrderViolation{i, j,
                              ordered ? "not transitive: the elements between them order "
                                        "them, yet they are incomparable"
                                      : "incomparability is not transitive: the elements between "
                                        "them are all equivalent, yet they are ordered"};
      }
    }
  }
  return std::nullopt;
}

absl::Status CheckStrictWeakOrder(absl::string_view instruction, absl::string_view comparator,
                                  absl::FunctionRef<std::string()> describe_row,
                                  absl::Span<const int64_t> sorted,
                                  const std::function<bool(int64_t, int64_t)>& less,
                                  int64_t& budget) {
  const std::optional<OrderViolation> violation =
      FindStrictWeakOrderViolation(sorted, less, budget);
  if (!violation.has_value()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "evaluator: ", instruction, ": comparator ", comparator,
      " is not a strict weak order on the values of row ", describe_row(), " (elements ",
      sorted[violation->first], " and ", sorted[violation->second], ": ", violation->reason,
      "); XLA leaves the result of such a sort implementation-defined, so there is no reference "
      "value"));
}

}  // namespace hmo::eval_internal
