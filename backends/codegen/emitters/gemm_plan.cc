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

std::optional<bool> GemmOperandTranspose(const HloInstruction& dot, int64_t operand) {
  const DotDimensionNumbers& dnums = dot.dot_dimension_numbers();
  const Shape& shape = dot.operand(operand)->shape();
  const std::vector<int64_t>& batch =
      operand == 0 ? dnums.lhs_batch_dimensions : dnums.rhs_batch_dimensions;
  const std::vector<int64_t>& contracting =
      operand == 0 ? dnums.lhs_contracting_dimensions : dnums.rhs_contracting_dimensions;
  const std::vector<int64_t> free =
      DotFreeDimensions(shape.dimensions().size(), batch, contracting);
  // The order of a matrix the GEMM reads untransposed: rows, then columns.
  const std::vector<int64_t>& rows = operand == 0 ? free : contracting;
  const std::vector<int64_t>& columns = operand == 0 ? contracting : free;
  const std::vector<int64_t> order = MajorToMinor(shape);
  if (order == Concat(Concat(batch, rows), columns)) return false;
  if (order == Concat(Concat(batch, columns), rows)) return true;
  return std::nullopt;
}

GemmPlan GemmSizes(const HloInstruction& dot) {
  const DotDimensionNumbers& dnums = dot.dot_dimension_numbers();
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  const std::vector<int64_t> lhs_free = DotFreeDimensions(
      lhs.dimensions().size(), dnums.lhs_batch_dimensions, dnums.lhs_contracting_dimensions);
  const std::vector<int64_t> rhs_free = DotFreeDimensions(
      rhs.dimensions().size(), dnums.rhs_batch_dimensions, dnums.rhs_contracting_dimensions);
  GemmPlan sizes;
  sizes.batch = Product(lhs, dnums.lhs_batch_dimensions);
  sizes.m = Product(lhs, lhs_free);
  sizes.k = Product(lhs, dnums.lhs_contracting_dimensions);
  sizes.n = Product(rhs, rhs_free);
  return sizes;
}

std::optional<GemmPlan> GemmPlanFor(const HloInstruction& dot) {
  const Shape& out = dot.shape();
  const int64_t out_rank = static_cast<int64_t>(out.dimensions().size());
  std::vector<int64_t> descending;
  for (int64_t d = 0; d < out_rank; ++d) descending.push_back(d);
  if (MajorToMinor(out) != descending) return std::nullopt;
  const std::optional<bool> transpose_lhs = GemmOperandTranspose(dot, 0);
  const std::optional<bool> transpose_rhs = GemmOperandTranspose(dot, 1);
  if (!transpose_lhs.has_value() || !transpose_rhs.has_value()) return std::nullopt;
  GemmPlan plan = GemmSizes(dot);
  plan.transpose_lhs = *transpose_lhs;
  plan.transpose_rhs = *transpose_rhs;
  return plan;
}

namespace {

// The runtime GEMMs (runtime_functions.h): element types, and the functions
// writing the product and handing it to an epilogue.
struct RuntimeGemm {
  GemmElementTypes types;
  PrimitiveType operands;
  PrimitiveType result;
  const char* function;
  const char* epilogue_function;
};

constexpr RuntimeGemm kRuntimeGemms[] = {
    {GemmElementTypes::kF32, PrimitiveType::F32, PrimitiveType::F32, "__hmo_cpu_gemm_f32",
     "__hmo_cpu_gemm_epilogue_f32"},
    {GemmElementTypes::kF64, PrimitiveType::F64, PrimitiveType::F64, "__hmo_cpu_gemm_f64",
     "__hmo_cpu_gemm_epilogue_f64"},
    {GemmElementTypes::kBf16ToF32, PrimitiveType::BF16, PrimitiveType::F32,
     "__hmo_cpu_gemm_bf16_f32", "__hmo_cpu_gemm_epilogue_bf16_f32"},
    {GemmElementTypes::kF16ToF32, PrimitiveType::F16, PrimitiveType::F32, "__hmo_cpu_gemm_f16_f32",
     "__hmo_cpu_gemm_epilogue_f16_f32"},
    {GemmElementTypes::kS8ToS32, PrimitiveType::S8, PrimitiveType::S32, "__hmo_cpu_gemm_s8_s32",
     "__hmo_cpu_gemm_epilogue_s8_s32"},
};

}  // namespace

std::optional<GemmElementTypes> RuntimeGemmElementTypes(const HloInstruction& dot) {
  const PrimitiveType out = dot.shape().element_type();
  const PrimitiveType lhs = dot.operand(0)->shape().element_type();
  const PrimitiveType rhs = dot.operand(1)->shape().element_type();
  if (lhs != rhs) return std::nullopt;
  for (const RuntimeGemm& gemm : kRuntimeGemms) {
    if (gemm.operands == lhs && gemm.result == out) return gemm.types;
  }
  return std::nullopt;
}

const char* RuntimeGemmFunction(GemmElementTypes types, bool with_epilogue) {
  for (const RuntimeGemm& gemm : kRuntimeGemms) {
    if (gemm.types == types) return with_epilogue ? gemm.epilogue_function : gemm.function;
  }
  return nullptr;
}

}  // namespace hmo::codegen
