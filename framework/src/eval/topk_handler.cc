// topk, and the TopK custom call XLA:CPU turns it into: along the last
// dimension, the k first elements in the order `comparator(a, b)` (a before
// b; or comparator(a, b, index_a, index_b)) gives, ties kept in index order,
// and their s32 indices. The topk opcode
// orders by value, largest first unless largest=false, NaN above every
// number (a total order), as XLA's TopK does. A comparator that is not a
// strict weak order on a row leaves the result undefined: refused
// (strict_weak_order.h).

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "element_copy.h"
#include "element_types.h"
#include "elementwise_semantics.h"
#include "index_space.h"
#include "opcode_handlers.h"
#include "scalar_combiner.h"
#include "strict_weak_order.h"

namespace hmo::eval_internal {

absl::StatusOr<Literal> HandleTopK(const HloInstruction& instr, Operands operands,
                                   const HloComputation* comparator, const ComputationRunner& run) {
  const Literal& input = *operands[0];
  const Shape& shape = instr.shape();
  if (!shape.IsTuple() || shape.tuple_shapes_size() != 2 || input.shape().rank() == 0) {
    return absl::InvalidArgumentError(absl::StrCat("evaluator: ", instr.name(),
                                                   ": top-k needs a (values, indices) result and an array"));
  }
  const std::vector<int64_t>& dims = input.shape().dimensions();
  const int64_t length = dims.back();
  const int64_t k = shape.tuple_shapes(0).dimensions().back();
  if (k > length) {
    return absl::InvalidArgumentError(absl::StrCat("evaluator: ", instr.name(), ": k=", k, " exceeds ", length));
  }
  const bool largest = instr.GetRawAttribute("largest").value_or("true") != "false";
  Literal result(shape);
  Literal& values = (*result.mutable_tuple_elements())[0];
  Literal& indices = (*result.mutable_tuple_elements())[1];
  const int64_t rows = length == 0 ? 0 : input.element_count() / length;
  const int64_t width = ByteWidth(input.element_type());
  std::vector<int64_t> order(length);
  absl::Status status;
  int64_t budget = kStrictWeakOrderCheckBudget;
  for (int64_t row = 0; row < rows && status.ok(); ++row) {
    const int64_t base = row * length;
    std::iota(order.begin(), order.end(), 0);
    if (comparator != nullptr) {
      auto before_in_order = [&](int64_t x, int64_t y) {
        if (!status.ok()) return false;
        // XLA:CPU's comparator may also take the two elements' s32 indices
        // (a sort comparator over values and their iota).
        std::vector<Literal> args = {ScalarAt(input, base + x), ScalarAt(input, base + y)};
        if (comparator->num_parameters() == 4) {
          Literal ix(Shape(PrimitiveType::S32, {}));
          Literal iy(Shape(PrimitiveType::S32, {}));
          ix.SetFromInt64(0, x);
          iy.SetFromInt64(0, y);
          args.push_back(std::move(ix));
          args.push_back(std::move(iy));
        }
        absl::StatusOr<Literal> before = run(*comparator, args);
        if (!before.ok()) {
          status = before.status();
          return false;
        }
        return before->GetAsBool(0);
      };
      std::stable_sort(order.begin(), order.end(), before_in_order);
      if (status.ok()) {
        const absl::Status consistent = CheckStrictWeakOrder(
            instr.name(), comparator->name(), [&] { return absl::StrCat(row); }, order,
            before_in_order, budget);
        if (status.ok()) status = consistent;
      }
    } else {
      status = SwitchOnElementType(input.element_type(), instr.name(), [&](auto tag) {
        constexpr PrimitiveType kT = decltype(tag)::value;
        const uint8_t* data = RawBytes(input);
        const ComparisonDirection direction = largest ? ComparisonDirection::kGt : ComparisonDirection::kLt;
        std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
          return CompareElements(LoadElement<kT>(data, base + x), LoadElement<kT>(data, base + y), direction,
                                 /*total_order=*/true);
        });
        return absl::OkStatus();
      });
    }
    for (int64_t j = 0; j < k && status.ok(); ++j) {
      CopyElement(RawBytes(input), base + order[j], MutableRawBytes(&values), row * k + j, width);
      indices.SetFromInt64(row * k + j, order[j]);
    }
  }
  if (!status.ok()) return status;
  return result;
}

}  // namespace hmo::eval_internal
