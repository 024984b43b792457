#include "hmo/codegen/fusion/loop_fusion_rules.h"

#include <cstdint>
#include <vector>

#include "hmo/codegen/kernel_emitter.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_opcode.h"
#include "hmo/ir/layout.h"
#include "hmo/ir/primitive_type.h"
#include "hmo/ir/shape.h"

namespace hmo::codegen {
namespace {

bool HasDescendingLayout(const Shape& shape) {
  const std::vector<int64_t> minor_to_major = ShapeUtil::LayoutOrDefault(shape).minor_to_major();
  const int64_t rank = static_cast<int64_t>(shape.dimensions().size());
  if (static_cast<int64_t>(minor_to_major.size()) != rank) return false;
  for (int64_t i = 0; i < rank; ++i) {
    if (minor_to_major[i] != rank - 1 - i) return false;
  }
  return true;
}

bool SameMinorToMajor(const Shape& a, const Shape& b) {
  return ShapeUtil::LayoutOrDefault(a).minor_to_major() ==
         ShapeUtil::LayoutOrDefault(b).minor_to_major();
}

// The producer kinds of cpu_instruction_fusion.h, fusions excluded.
bool IsLoopFusibleNonFusion(const HloInstruction& producer) {
  if (!producer.shape().IsArray()) return false;
  switch (producer.opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kIota:
      return true;
    case HloOpcode::kReshape:
      // Row-major in and out: the reshape only renames indices of the same
      // linear element order.
      return HasDescendingLayout(producer.shape()) &&
             HasDescendingLayout(producer.operand(0)->shape());
    case HloOpcode::kBitcast: {
      const Shape& in = producer.operand(0)->shape();
      return in.IsArray() && in.element_type() == producer.shape().element_type() &&
             ShapeUtil::ElementsIn(in) == ShapeUtil::ElementsIn(producer.shape());
    }
    case HloOpcode::kSlice:
      return SameMinorToMajor(producer.shape(), producer.operand(0)->shape());
    case HloOpcode::kConstant:
      return ShapeUtil::IsEffectiveScalar(producer.shape());
    case HloOpcode::kFusion:
      return false;
    default:
      return producer.IsElementwise();
  }
}

}  // namespace

bool IsExpensiveForFusion(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    // Cheap elementwise operations and data movement.
    case HloOpcode::kAdd:
    case HloOpcode::kAnd:
    case HloOpcode::kBitcast:
    case HloOpcode::kBitcastConvert:
    case HloOpcode::kBroadcast:
    case HloOpcode::kCeil:
    case HloOpcode::kClamp:
    case HloOpcode::kClz:
    case HloOpcode::kCompare:
    case HloOpcode::kComplex:
    case HloOpcode::kConcatenate:
    case HloOpcode::kConstant:
    case HloOpcode::kConvert:
    case HloOpcode::kCopy:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kFloor:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kImag:
    case HloOpcode::kIota:
    case HloOpcode::kIsFinite:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kMultiply:
    case HloOpcode::kNegate:
    case HloOpcode::kNot:
    case HloOpcode::kOr:
    case HloOpcode::kPad:
    case HloOpcode::kParameter:
    case HloOpcode::kPopulationCount:
    case HloOpcode::kReal:
    case HloOpcode::kReducePrecision:
    case HloOpcode::kReshape:
    case HloOpcode::kReverse:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kSelect:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kSign:
    case HloOpcode::kSlice:
    case HloOpcode::kSubtract:
    case HloOpcode::kTranspose:
    case HloOpcode::kTuple:
    case HloOpcode::kXor:
      return false;
    // Cheap on reals, a libm-style sequence on complex values.
    case HloOpcode::kAbs:
    case HloOpcode::kCos:
    case HloOpcode::kSin:
    case HloOpcode::kTan:
      return IsComplex(instruction.shape().IsArray() ? instruction.shape().element_type()
                                                     : PrimitiveType::PRIMITIVE_TYPE_INVALID);
    case HloOpcode::kFusion: {
      const HloComputation* fused = instruction.fused_instructions_computation();
      if (fused == nullptr) return true;
      for (const HloInstruction* inner : fused->instructions()) {
        if (IsExpensiveForFusion(*inner)) return true;
      }
      return false;
    }
    // Transcendentals, divisions, calls and every non-elementwise computation.
    default:
      return true;
  }
}

bool IsReductionHost(const HloInstruction& consumer, ReductionHosts hosts) {
  if (hosts == ReductionHosts::kNone) return false;
  const HloInstruction* reduce = &consumer;
  if (consumer.opcode() == HloOpcode::kFusion) {
    const HloComputation* fused = consumer.fused_instructions_computation();
    if (consumer.fusion_kind() != FusionKind::kInput || fused == nullptr) return false;
    reduce = fused->root_instruction();
  }
  if (reduce->opcode() != HloOpcode::kReduce || !reduce->shape().IsArray() ||
      reduce->operand_count() != 2 || reduce->to_apply() == nullptr) {
    return false;
  }
  if (hosts == ReductionHosts::kAnySize) return true;
  // A producer large enough to run in parts keeps its own loop: inside a
  // row reduction it would run scalar, and a column reduction runs whole on
  // one thread.
  return ShapeUtil::ByteSizeOf(reduce->operand(0)->shape()) < kMaxInnerReductionBytes;
}

bool CanHostLoopFusion(const HloInstruction& consumer, ReductionHosts hosts) {
  if (IsReductionHost(consumer, hosts)) return true;
  if (consumer.opcode() == HloOpcode::kFusion) {
    return consumer.fusion_kind() == FusionKind::kLoop &&
           consumer.fused_instructions_computation() != nullptr;
  }
  return consumer.shape().IsArray() && consumer.IsElementwise();
}

bool IsLoopFusibleProducerKind(const HloInstruction& producer) {
  if (producer.opcode() != HloOpcode::kFusion) return IsLoopFusibleNonFusion(producer);
  if (producer.fusion_kind() != FusionKind::kLoop || !producer.shape().IsArray()) return false;
  const HloComputation* fused = producer.fused_instructions_computation();
  if (fused == nullptr) return false;
  for (const HloInstruction* inner : fused->instructions()) {
    if (inner->opcode() == HloOpcode::kParameter) continue;
    if (!IsLoopFusibleNonFusion(*inner)) return false;
  }
  return true;
}

}  // namespace hmo::codegen
