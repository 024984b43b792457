#include "hmo/codegen/gemm_plan.h"

#include <algorithm>

#include "hmo/ir/layout.h"
#include "hmo/ir/shape.h"

namespace hmo::codegen {
namespace {

// Dimensions from most major to most minor in memory.
std::vector<int64_t> MajorToMinor(const Shape& shape) {
  std::vector<int64_t> order = ShapeUtil::LayoutOrDefault(shape).minor_to_major();
  std::reverse(order.begin(), order.end());
  return order;
}

std::vector<int64_t> Concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

int64_t Product(const Shape& shape, const std::vector<int64_t>& dims) {
  int64_t product = 1;
  for (int64_t d : dims) product *= shape.dimensions()[d];
  return product;
}

}  // namespace

std::optional<GemmPlan> GemmPlanFor(const HloInstruction& dot) {
  const DotDimensionNumbers& dnums = dot.dot_dimension_numbers();
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  const Shape& out = dot.shape();
  const int64_t out_rank = static_cast<int64_t>(out.dimensions().size());
  std::vector<int64_t> descending;
  for (int64_t d = 0; d < out_rank; ++d) descending.push_back(d);
  if (MajorToMinor(out) != descending) return std::nullopt;
  const std::vector<int64_t> lhs_free = DotFreeDimensions(
      lhs.dimensions().size(), dnums.lhs_batch_dimensions, dnums.lhs_contracting_dimensions);
  const std::vector<int64_t> rhs_free = DotFreeDimensions(
      rhs.dimensions().size(), dnums.rhs_batch_dimensions, dnums.rhs_contracting_dimensions);
  GemmPlan plan;
  const std::vector<int64_t> lhs_order = MajorToMinor(lhs);
  if (lhs_order ==
      Concat(Concat(dnums.lhs_batch_dimensions, lhs_free), dnums.lhs_contracting_dimensions)) {
    plan.transpose_lhs = false;
  } else if (lhs_order ==
             Concat(Concat(dnums.lhs_batch_dimensions, dnums.lhs_contracting_dimensions),
                    lhs_free)) {
    plan.transpose_lhs = true;
  } else {
    return std::nullopt;
  }
  const std::vector<int64_t> rhs_order = MajorToMinor(rhs);
  if (rhs_order ==
      Concat(Concat(dnums.rhs_batch_dimensions, dnums.rhs_contracting_dimensions), rhs_free)) {
    plan.transpose_rhs = false;
  } else if (rhs_order == Concat(Concat(dnums.rhs_batch_dimensions, rhs_free),
                                 dnums.rhs_contracting_dimensions)) {
    plan.transpose_rhs = true;
  } else {
    return std::nullopt;
  }
  plan.batch = Product(lhs, dnums.lhs_batch_dimensions);
  plan.m = Product(lhs, lhs_free);
  plan.k = Product(lhs, dnums.lhs_contracting_dimensions);
  plan.n = Product(rhs, rhs_free);
  return plan;
}

}  // namespace hmo::codegen
