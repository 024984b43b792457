// sort: every 1-D slice along the sort dimension is permuted so that the
// comparator computation, called as comparator(op0[a], op0[b], op1[a],
// op1[b], ...), orders it; all operands are permuted alike. A stable sort is
// used whether or not is_stable is set (a stable order is one of the orders
// an unstable sort may produce). Comparators that are a single compare of
// the first operand's two parameters run natively. A comparator that is not
// a strict weak order on a row's values leaves the result undefined
// (strict_weak_order.h): the evaluator refuses it, naming the row.

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
namespace {

// A comparator `ROOT compare(parameter(0), parameter(1))` (or swapped).
struct SimpleComparator {
  ComparisonDirection direction;
  bool total_order;
  bool swapped;
};

std::optional<SimpleComparator> MatchSimpleComparator(const HloComputation& comparator) {
  const HloInstruction* root = comparator.root_instruction();
  if (root == nullptr || root->opcode() != HloOpcode::kCompare) return std::nullopt;
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (a->opcode() != HloOpcode::kParameter || b->opcode() != HloOpcode::kParameter) {
    return std::nullopt;
  }
  const bool total = root->comparison_type() == ComparisonType::kFloatTotalOrder;
  if (a->parameter_number() == 0 && b->parameter_number() == 1) {
    return SimpleComparator{root->comparison_direction(), total, false};
  }
  if (a->parameter_number() == 1 && b->parameter_number() == 0) {
    return SimpleComparator{root->comparison_direction(), total, true};
  }
  return std::nullopt;
}

// "{2,*,0}": the slice of `index` along `dimension`.
std::string DescribeSlice(absl::Span<const int64_t> index, int64_t dimension) {
  std::string text = "{";
  for (int64_t d = 0; d < static_cast<int64_t>(index.size()); ++d) {
    if (d > 0) text += ",";
    text += d == dimension ? std::string("*") : absl::StrCat(index[d]);
  }
  return text + "}";
}

}  // namespace

absl::StatusOr<Literal> HandleSort(const HloInstruction& instr, Operands operands,
                                   const ComputationRunner& run) {
  const int64_t n = operands.size();
  Literal result(instr.shape());
  std::vector<Literal*> outs;
  if (instr.shape().IsTuple()) {
    for (Literal& element : *result.mutable_tuple_elements()) outs.push_back(&element);
  } else {
    outs.push_back(&result);
  }
  const std::vector<int64_t>& dims = operands[0]->shape().dimensions();
  if (dims.empty()) {
    *outs[0]->mutable_raw_data() = operands[0]->raw_data();
    return result;
  }
  const int64_t sort_dim = instr.dimensions().empty() ? 0 : instr.dimensions(0);
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  const int64_t length = dims[sort_dim];
  const int64_t step = strides[sort_dim];
  std::vector<int64_t> outer_dims = dims;
  outer_dims[sort_dim] = 1;
  const std::optional<SimpleComparator> simple = MatchSimpleComparator(*instr.to_apply());

  absl::Status status;
  int64_t budget = kStrictWeakOrderCheckBudget;
  std::vector<int64_t> order(length);
  ForEachIndex(outer_dims, [&](absl::Span<const int64_t> index) {
    if (!status.ok()) return;
    const int64_t base = DotIndex(index, strides);
    auto describe_row = [&] { return DescribeSlice(index, sort_dim); };
    std::iota(order.begin(), order.end(), 0);
    if (simple.has_value()) {
      status = SwitchOnElementType(operands[0]->element_type(), instr.name(), [&](auto tag) {
        constexpr PrimitiveType kT = decltype(tag)::value;
        const uint8_t* keys = RawBytes(*operands[0]);
        auto less = [&](int64_t x, int64_t y) {
          auto a = LoadElement<kT>(keys, base + x * step);
          auto b = LoadElement<kT>(keys, base + y * step);
          return simple->swapped ? CompareElements(b, a, simple->direction, simple->total_order)
                                 : CompareElements(a, b, simple->direction, simple->total_order);
        };
        std::stable_sort(order.begin(), order.end(), less);
        return CheckStrictWeakOrder(instr.name(), instr.to_apply()->name(), describe_row, order,
                                    less, budget);
      });
    } else {
      auto less = [&](int64_t x, int64_t y) {
        if (!status.ok()) return false;
        std::vector<Literal> args;
        for (const Literal* operand : operands) {
          args.push_back(ScalarAt(*operand, base + x * step));
          args.push_back(ScalarAt(*operand, base + y * step));
        }
        absl::StatusOr<Literal> before = run(*instr.to_apply(), args);
        if (!before.ok()) {
          status = before.status();
          return false;
        }
        return before->GetAsBool(0);
      };
      std::stable_sort(order.begin(), order.end(), less);
      if (status.ok()) {
        const absl::Status consistent = CheckStrictWeakOrder(instr.name(), instr.to_apply()->name(),
                                                             describe_row, order, less, budget);
        if (status.ok()) status = consistent;
      }
    }
    if (!status.ok()) return;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t width = ByteWidth(operands[i]->element_type());
      for (int64_t j = 0; j < length; ++j) {
        CopyElement(RawBytes(*operands[i]), base + order[j] * step, MutableRawBytes(outs[i]),
                    base + j * step, width);
      }
    }
  });
  if (!status.ok()) return status;
  return result;
}

}  // namespace hmo::eval_internal
