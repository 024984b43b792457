// dot with batch and contracting dimensions. Both operands are first laid
// out as [batch, free, contracting] (lhs) and [batch, contracting, free]
// (rhs) arrays of the accumulation type; the result, whose dimensions are
// batch, lhs free, rhs free in that order, is then a plain batched matrix
// product with the contracting index summed in increasing order.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hmo/ir/dot_dimensions.h"
#include "accumulation.h"
#include "opcode_handlers.h"
#include "row_kernels.h"

namespace hmo::eval_internal {
namespace {

int64_t ProductOfDims(const Shape& shape, const std::vector<int64_t>& dims) {
  int64_t product = 1;
  for (int64_t d : dims) product *= shape.dimensions(d);
  return product;
}

std::vector<int64_t> Concat(std::initializer_list<const std::vector<int64_t>*> parts) {
  std::vector<int64_t> all;
  for (const auto* part : parts) all.insert(all.end(), part->begin(), part->end());
  return all;
}

}  // namespace

absl::StatusOr<Literal> HandleDot(const HloInstruction& instr, Operands operands) {
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  const DotDimensionNumbers& dnums = instr.dot_dimension_numbers();
  if (operands.size() != 2) {
    return absl::UnimplementedError(
        absl::StrCat("evaluator: dot ", instr.name(), " with sparsity operands"));
  }
  const std::vector<int64_t> lhs_free = DotFreeDimensions(
      lhs.shape().rank(), dnums.lhs_batch_dimensions, dnums.lhs_contracting_dimensions);
  const std::vector<int64_t> rhs_free = DotFreeDimensions(
      rhs.shape().rank(), dnums.rhs_batch_dimensions, dnums.rhs_contracting_dimensions);
  const int64_t batch = ProductOfDims(lhs.shape(), dnums.lhs_batch_dimensions);
  const int64_t m = ProductOfDims(lhs.shape(), lhs_free);
  const int64_t k = ProductOfDims(lhs.shape(), dnums.lhs_contracting_dimensions);
  const int64_t n = ProductOfDims(rhs.shape(), rhs_free);
  const std::vector<int64_t> lhs_order =
      Concat({&dnums.lhs_batch_dimensions, &lhs_free, &dnums.lhs_contracting_dimensions});
  const std::vector<int64_t> rhs_order =
      Concat({&dnums.rhs_batch_dimensions, &dnums.rhs_contracting_dimensions, &rhs_free});

  Literal out(instr.shape());
  std::vector<int64_t> identity(out.shape().rank());
  for (size_t d = 0; d < identity.size(); ++d) identity[d] = static_cast<int64_t>(d);
  absl::Status status = SwitchOnAccumulationType(
      out.element_type(), lhs.element_type(), rhs.element_type(), instr.name(), [&](auto zero) {
        using Acc = decltype(zero);
        const std::vector<Acc> a = LoadTransposed<Acc>(lhs, lhs_order);
        const std::vector<Acc> b = LoadTransposed<Acc>(rhs, rhs_order);
        std::vector<Acc> c(static_cast<size_t>(batch * m * n), Acc{0});
        for (int64_t bi = 0; bi < batch; ++bi) {
          for (int64_t mi = 0; mi < m; ++mi) {
            Acc* row = c.data() + (bi * m + mi) * n;
            const Acc* a_row = a.data() + (bi * m + mi) * k;
            for (int64_t ki = 0; ki < k; ++ki) {
              const Acc x = a_row[ki];
              const Acc* b_row = b.data() + (bi * k + ki) * n;
              AccumulateScaledRow(row, b_row, x, n);
            }
          }
        }
        StoreTransposed<Acc>(c, identity, &out);
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return out;
}

}  // namespace hmo::eval_internal
