#include "cpu/simplification/convolution_canonicalization.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "cpu/simplification/row_major_transpose.h"
#include "hmo/base/status_macros.h"
#include "hmo/codegen/convolution_plan.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/ir/shape.h"

namespace hmo::cpu {
namespace {

bool IsPlainRank4(const Shape& shape) {
  return shape.IsArray() && shape.rank() == 4 &&
         (!shape.has_layout() || shape.layout().HasOnlyMinorToMajor());
}

// A convolution the pass rewrites.
bool IsCandidate(const HloInstruction& conv) {
  if (conv.opcode() != HloOpcode::kConvolution || conv.operand_count() != 2 ||
      !conv.has_convolution_dimension_numbers() || !conv.has_window() ||
      !conv.control_predecessors().empty() || !conv.control_successors().empty()) {
    return false;
  }
  const PrimitiveType type = conv.shape().element_type();
  if (codegen::RuntimeConvolutionFunction(type, /*with_epilogue=*/false) == nullptr ||
      !IsPlainRank4(conv.shape()) || !IsPlainRank4(conv.operand(0)->shape()) ||
      !IsPlainRank4(conv.operand(1)->shape()) || conv.operand(0)->shape().element_type() != type ||
      conv.operand(1)->shape().element_type() != type || conv.batch_group_count() != 1 ||
      conv.window().dimensions.size() != 2) {
    return false;
  }
  for (const WindowDimension& w : conv.window().dimensions) {
    if (w.window_reversal) return false;
  }
  return !codegen::IsRuntimeConvolution2D(conv);
}

bool IsIdentity(const std::vector<int64_t>& order) {
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// `operand` in `order` and row-major: itself when it already is.
HloInstruction* InOrder(HloComputation& computation, HloInstruction* operand,
                        const std::vector<int64_t>& order) {
  if (IsIdentity(order) && IsRowMajorShape(operand->shape())) return operand;
  return AddRowMajorTranspose(computation, operand, order);
}

absl::Status Canonicalize(HloComputation& computation, HloInstruction* conv) {
  const ConvolutionDimensionNumbers& d = conv->convolution_dimension_numbers();
  HloInstruction* input = InOrder(computation, conv->mutable_operand(0),
                                  {d.input_batch_dimension, d.input_spatial_dimensions[0],
                                   d.input_spatial_dimensions[1], d.input_feature_dimension});
  HloInstruction* kernel =
      InOrder(computation, conv->mutable_operand(1),
              {d.kernel_spatial_dimensions[0], d.kernel_spatial_dimensions[1],
               d.kernel_input_feature_dimension, d.kernel_output_feature_dimension});
  // The result's dimensions in the runtime's order.
  const std::vector<int64_t> output_order = {
      d.output_batch_dimension, d.output_spatial_dimensions[0], d.output_spatial_dimensions[1],
      d.output_feature_dimension};
  std::vector<int64_t> dimensions;
  for (int64_t o : output_order) dimensions.push_back(conv->shape().dimensions()[o]);
  std::unique_ptr<HloInstruction> canonical = conv->CloneWithNewOperands(
      ShapeUtil::MakeShapeWithDescendingLayout(conv->shape().element_type(), dimensions),
      {input, kernel});
  canonical->set_convolution_dimension_numbers(codegen::RuntimeConvolutionDimensionNumbers());
  HloInstruction* result = computation.AddInstruction(std::move(canonical), conv->name());
  if (!IsIdentity(output_order) || !IsRowMajorShape(conv->shape())) {
    // Original dimension j is the runtime order's dimension at j's position.
    std::vector<int64_t> permutation(4);
    for (int64_t j = 0; j < 4; ++j) {
      permutation[j] =
          std::find(output_order.begin(), output_order.end(), j) - output_order.begin();
    }
    std::unique_ptr<HloInstruction> back =
        HloInstruction::Create(HloOpcode::kTranspose, conv->shape(), {result});
    back->set_dimensions(permutation);
    back->set_has_dimensions(true);
    result = computation.AddInstruction(std::move(back));
  }
  return computation.ReplaceInstruction(conv, result);
}

}  // namespace

absl::StatusOr<bool> ConvolutionCanonicalization::Run(HloModule& module, PassContext& /*context*/) {
  bool changed = false;
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    std::vector<HloInstruction*> convolutions;
    for (HloInstruction* instruction : computation->instructions()) {
      if (IsCandidate(*instruction)) convolutions.push_back(instruction);
    }
    for (HloInstruction* conv : convolutions) {
      HMO_RETURN_IF_ERROR(Canonicalize(*computation, conv));
      changed = true;
    }
  }
  if (changed && module.has_schedule()) HMO_RETURN_IF_ERROR(module.schedule().Update());
  return changed;
}

}  // namespace hmo::cpu
