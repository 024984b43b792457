#include "cpu/simplification/dot_canonicalization.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "cpu/simplification/row_major_transpose.h"
#include "hmo/base/status_macros.h"
#include "hmo/codegen/gemm_plan.h"
#include "hmo/ir/dot_dimensions.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/ir/shape.h"

namespace hmo::cpu {
namespace {

bool IsHalfFloat(PrimitiveType type) {
  return type == PrimitiveType::BF16 || type == PrimitiveType::F16;
}

// An array whose layout, if any, is a plain dimension order (no tiling,
// element size or memory space): the shapes the rewrite reasons about.
bool IsPlainArray(const Shape& shape) {
  return shape.IsArray() && (!shape.has_layout() || shape.layout().HasOnlyMinorToMajor());
}

// A dot the pass may rewrite: two plain array operands, no control edges.
bool IsCandidate(const HloInstruction& dot) {
  if (dot.opcode() != HloOpcode::kDot || dot.operand_count() != 2 || !IsPlainArray(dot.shape()) ||
      !dot.control_predecessors().empty() || !dot.control_successors().empty()) {
    return false;
  }
  return IsPlainArray(dot.operand(0)->shape()) && IsPlainArray(dot.operand(1)->shape());
}

// Whether the GEMM repays converting or transposing the operands: each
// element copied is used in enough multiply-adds (m*n*k against eight times
// the elements of the three matrices). A dot below that, such as a
// matrix-vector product, stays a generated loop.
bool WorthAGemm(const HloInstruction& dot) {
  const codegen::GemmPlan sizes = codegen::GemmSizes(dot);
  const double m = static_cast<double>(sizes.m);
  const double n = static_cast<double>(sizes.n);
  const double k = static_cast<double>(sizes.k);
  return m * n * k > 8.0 * (m * k + k * n + m * n);
}

// How a dot of 16-bit floats (operands and result) reaches a runtime GEMM.
enum class HalfFloatDot {
  kNone,           // not such a dot
  kWidenedResult,  // bf16 or f16 operands as they are, an f32 product, narrowed after
  kUpcast,         // mixed bf16 and f16: operands widened to f32, narrowed after
};

HalfFloatDot HalfFloatDotKind(const HloInstruction& dot) {
  const PrimitiveType out = dot.shape().element_type();
  const PrimitiveType lhs = dot.operand(0)->shape().element_type();
  const PrimitiveType rhs = dot.operand(1)->shape().element_type();
  if (!IsHalfFloat(out) || !IsHalfFloat(lhs) || !IsHalfFloat(rhs)) return HalfFloatDot::kNone;
  return out == lhs && lhs == rhs ? HalfFloatDot::kWidenedResult : HalfFloatDot::kUpcast;
}

Shape WithElementType(Shape shape, PrimitiveType type) {
  shape.set_element_type(type);
  return shape;
}

std::vector<int64_t> Concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<int64_t> Iota(int64_t begin, int64_t count) {
  std::vector<int64_t> values;
  for (int64_t i = 0; i < count; ++i) values.push_back(begin + i);
  return values;
}

// Whether `value` is held for the whole computation anyway: a parameter, or
// an element of one (a loop's state).
bool IsHeldThroughout(const HloInstruction& value) {
  if (value.opcode() == HloOpcode::kParameter) return true;
  return value.opcode() == HloOpcode::kGetTupleElement &&
         value.operand(0)->opcode() == HloOpcode::kParameter;
}

// A bf16 operand that several users share and that is a cast of an array
// held throughout (a weight cast to bf16 once and read by the forward and
// the backward dots) is cast again for this dot alone: the shared cast
// would stay live from the first dot to the last, where the f32 path
// recomputed it inside each dot's operand fusion. The scheduler places the
// copy next to the dot.
HloInstruction* CastForThisDot(HloComputation& computation, HloInstruction* operand) {
  if (operand->opcode() != HloOpcode::kConvert || operand->user_count() < 2 ||
      !IsHeldThroughout(*operand->operand(0)) || !operand->control_predecessors().empty()) {
    return operand;
  }
  return computation.AddInstruction(
      operand->CloneWithNewOperands(operand->shape(), {operand->mutable_operand(0)}));
}

// Rewrites `dot` (in `computation`) into GEMM form. Returns whether it
// changed anything.
absl::StatusOr<bool> Canonicalize(HloComputation& computation, HloInstruction* dot) {
  HloInstruction* lhs = dot->mutable_operand(0);
  HloInstruction* rhs = dot->mutable_operand(1);
  DotDimensionNumbers numbers = dot->dot_dimension_numbers();
  const HalfFloatDot half = HalfFloatDotKind(*dot);
  // The product is f32 and a convert narrows it to the dot's type.
  const bool narrowed = half != HalfFloatDot::kNone;
  if (half == HalfFloatDot::kWidenedResult) {
    lhs = CastForThisDot(computation, lhs);
    rhs = CastForThisDot(computation, rhs);
  } else if (half == HalfFloatDot::kUpcast) {
    lhs = computation.AddInstruction(HloInstruction::CreateUnary(
        WithElementType(lhs->shape(), PrimitiveType::F32), HloOpcode::kConvert, lhs));
    rhs = computation.AddInstruction(HloInstruction::CreateUnary(
        WithElementType(rhs->shape(), PrimitiveType::F32), HloOpcode::kConvert, rhs));
  } else if (!codegen::RuntimeGemmElementTypes(*dot).has_value() ||
             codegen::GemmPlanFor(*dot).has_value()) {
    return false;
  }
  const Shape result_shape =
      narrowed ? WithElementType(dot->shape(), PrimitiveType::F32) : dot->shape();

  // Operands not laid out as matrices are transposed into GEMM order, when
  // the dot's result is row-major (a GEMM writes row-major matrices).
  std::unique_ptr<HloInstruction> probe = dot->CloneWithNewOperands(result_shape, {lhs, rhs});
  bool transposed = false;
  if (IsRowMajorShape(dot->shape())) {
    const int64_t batch = static_cast<int64_t>(numbers.lhs_batch_dimensions.size());
    const int64_t contracting = static_cast<int64_t>(numbers.lhs_contracting_dimensions.size());
    if (!codegen::GemmOperandTranspose(*probe, 0).has_value()) {
      const std::vector<int64_t> free = DotFreeDimensions(
          lhs->shape().rank(), numbers.lhs_batch_dimensions, numbers.lhs_contracting_dimensions);
      lhs = AddRowMajorTranspose(
          computation, lhs,
          Concat(Concat(numbers.lhs_batch_dimensions, free), numbers.lhs_contracting_dimensions));
      numbers.lhs_batch_dimensions = Iota(0, batch);
      numbers.lhs_contracting_dimensions =
          Iota(batch + static_cast<int64_t>(free.size()), contracting);
      transposed = true;
    }
    if (!codegen::GemmOperandTranspose(*probe, 1).has_value()) {
      const std::vector<int64_t> free = DotFreeDimensions(
          rhs->shape().rank(), numbers.rhs_batch_dimensions, numbers.rhs_contracting_dimensions);
      rhs = AddRowMajorTranspose(
          computation, rhs,
          Concat(Concat(numbers.rhs_batch_dimensions, numbers.rhs_contracting_dimensions), free));
      numbers.rhs_batch_dimensions = Iota(0, batch);
      numbers.rhs_contracting_dimensions = Iota(batch, contracting);
      transposed = true;
    }
  }
  if (!narrowed && !transposed) return false;
  probe.reset();

  std::unique_ptr<HloInstruction> replacement = dot->CloneWithNewOperands(result_shape, {lhs, rhs});
  replacement->set_dot_dimension_numbers(std::move(numbers));
  HloInstruction* product = computation.AddInstruction(std::move(replacement), dot->name());
  if (narrowed) {
    product = computation.AddInstruction(
        HloInstruction::CreateUnary(dot->shape(), HloOpcode::kConvert, product));
  }
  HMO_RETURN_IF_ERROR(computation.ReplaceInstruction(dot, product));
  return true;
}

// `transpose` of a matrix product whose only user it is, every user of the
// transpose elementwise (they read any layout): replaced by the product of
// the swapped operands, (AB)^T = B^T A^T, written row-major in the
// transpose's order. Returns the new dot, or null when the rule does not
// apply. XLA's algebraic simplifier folds such transposes the same way; JAX
// writes them for weight gradients, laid out so that the transposed copy is
// the dot's own bytes, which elementwise users would then read with a stride.
absl::StatusOr<HloInstruction*> FoldResultTranspose(HloComputation& computation,
                                                    HloInstruction* transpose) {
  if (transpose->opcode() != HloOpcode::kTranspose ||
      transpose->dimensions() != std::vector<int64_t>{1, 0} ||
      transpose == computation.root_instruction() || !transpose->control_predecessors().empty() ||
      !transpose->control_successors().empty() || !IsPlainArray(transpose->shape())) {
    return nullptr;
  }
  HloInstruction* dot = transpose->mutable_operand(0);
  if (!IsCandidate(*dot) || dot->user_count() != 1 || dot->shape().rank() != 2 ||
      !dot->dot_dimension_numbers().lhs_batch_dimensions.empty() ||
      dot->shape().element_type() != transpose->shape().element_type()) {
    return nullptr;
  }
  for (const HloInstruction* user : transpose->users()) {
    if (!user->IsElementwise() || user->opcode() == HloOpcode::kFusion) return nullptr;
  }
  DotDimensionNumbers swapped;
  swapped.lhs_contracting_dimensions = dot->dot_dimension_numbers().rhs_contracting_dimensions;
  swapped.rhs_contracting_dimensions = dot->dot_dimension_numbers().lhs_contracting_dimensions;
  std::unique_ptr<HloInstruction> product = dot->CloneWithNewOperands(
      ShapeUtil::MakeShapeWithDescendingLayout(transpose->shape().element_type(),
                                               transpose->shape().dimensions()),
      {dot->mutable_operand(1), dot->mutable_operand(0)});
  product->set_dot_dimension_numbers(std::move(swapped));
  HloInstruction* added = computation.AddInstruction(std::move(product), dot->name());
  HMO_RETURN_IF_ERROR(computation.ReplaceInstruction(transpose, added));
  return added;
}

}  // namespace

absl::StatusOr<bool> DotCanonicalization::Run(HloModule& module, PassContext& /*context*/) {
  bool changed = false;
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    std::vector<HloInstruction*> transposes;
    for (HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() == HloOpcode::kTranspose) transposes.push_back(instruction);
    }
    for (HloInstruction* transpose : transposes) {
      HMO_ASSIGN_OR_RETURN(HloInstruction * folded, FoldResultTranspose(*computation, transpose));
      changed |= folded != nullptr;
    }
    std::vector<HloInstruction*> dots;
    for (HloInstruction* instruction : computation->instructions()) {
      if (IsCandidate(*instruction) && WorthAGemm(*instruction)) dots.push_back(instruction);
    }
    for (HloInstruction* dot : dots) {
      HMO_ASSIGN_OR_RETURN(bool rewritten, Canonicalize(*computation, dot));
      changed |= rewritten;
    }
  }
  if (changed && module.has_schedule()) HMO_RETURN_IF_ERROR(module.schedule().Update());
  return changed;
}

}  // namespace hmo::cpu
