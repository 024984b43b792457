#include "hmo/analysis/flop_count.h"

#include <algorithm>
#include <bit>

#include "hmo/ir/hlo_opcode.h"
#include "hmo/ir/hlo_opcode_class.h"
#include "hmo/ir/shape.h"

namespace hmo {
namespace {

int64_t Elements(const Shape& shape) { return shape.IsArray() ? ShapeUtil::ElementsIn(shape) : 0; }

// Elements of the first array leaf (a variadic reduce's or sort's operands
// share their dimensions).
int64_t FirstArrayElements(const Shape& shape) {
  if (shape.IsArray()) return ShapeUtil::ElementsIn(shape);
  for (const Shape& element : shape.tuple_shapes()) {
    if (int64_t elements = FirstArrayElements(element); elements > 0) return elements;
  }
  return 0;
}

int64_t WindowElements(const HloInstruction& instruction) {
  if (!instruction.has_window()) return 1;
  int64_t elements = 1;
  for (const WindowDimension& dimension : instruction.window().dimensions) {
    elements *= std::max<int64_t>(dimension.size, 1);
  }
  return elements;
}

int64_t DotFlops(const HloInstruction& dot) {
  const Shape& lhs = dot.operand(0)->shape();
  int64_t contracted = 1;
  for (int64_t dimension : dot.dot_dimension_numbers().lhs_contracting_dimensions) {
    contracted *= lhs.dimensions(static_cast<int>(dimension));
  }
  return 2 * Elements(dot.shape()) * contracted;
}

int64_t ConvolutionFlops(const HloInstruction& convolution) {
  const Shape& kernel = convolution.operand(1)->shape();
  const ConvolutionDimensionNumbers& dnums = convolution.convolution_dimension_numbers();
  const int64_t output_features = std::max<int64_t>(
      kernel.dimensions(static_cast<int>(dnums.kernel_output_feature_dimension)), 1);
  // Multiply-adds per output element: the kernel's elements for one output
  // feature (its spatial window times the input features of its group).
  const int64_t per_output = Elements(kernel) / output_features;
  return 2 * Elements(convolution.shape()) * per_output;
}

int64_t SortFlops(const HloInstruction& sort) {
  const Shape& keys = sort.operand(0)->shape();
  if (!keys.IsArray() || keys.dimensions_size() == 0) return 0;
  const int64_t n = keys.dimensions(static_cast<int>(keys.dimensions_size() - 1));
  if (n <= 1) return 0;
  const int64_t log_n = std::bit_width(static_cast<uint64_t>(n - 1));
  return Elements(keys) * log_n;
}

}  // namespace

int64_t FlopCount(const HloInstruction& instruction) {
  const HloOpcode opcode = instruction.opcode();
  switch (opcode) {
    case HloOpcode::kDot:
      return DotFlops(instruction);
    case HloOpcode::kConvolution:
      return ConvolutionFlops(instruction);
    case HloOpcode::kReduce: {
      const int64_t inputs = instruction.operand_count() / 2;
      return inputs * std::max<int64_t>(FirstArrayElements(instruction.operand(0)->shape()) -
                                            FirstArrayElements(instruction.shape()),
                                        0);
    }
    case HloOpcode::kReduceWindow:
      return FirstArrayElements(instruction.shape()) * WindowElements(instruction);
    case HloOpcode::kSelectAndScatter: {
      const int64_t source = Elements(instruction.operand(1)->shape());
      return source * WindowElements(instruction) + source;
    }
    case HloOpcode::kScatter:
      return Elements(instruction.operand(instruction.operand_count() - 1)->shape());
    case HloOpcode::kSort:
      return SortFlops(instruction);
    case HloOpcode::kFusion:
    case HloOpcode::kCall:
      return instruction.called_computations().empty()
                 ? 0
                 : FlopCount(*instruction.called_computations()[0]);
    case HloOpcode::kWhile:
      return FlopCount(*instruction.while_condition()) + FlopCount(*instruction.while_body());
    case HloOpcode::kConditional: {
      int64_t most = 0;
      for (const HloComputation* branch : instruction.branch_computations()) {
        most = std::max(most, FlopCount(*branch));
      }
      return most;
    }
    default:
      break;
  }
  switch (HloOpcodeClassOf(opcode)) {
    case HloOpcodeClass::kElementwiseUnary:
    case HloOpcodeClass::kElementwiseBinary:
    case HloOpcodeClass::kElementwiseTernary:
      return Elements(instruction.shape());
    case HloOpcodeClass::kElementwiseConversion:
      // bitcast-convert reinterprets bits; convert computes each element.
      return opcode == HloOpcode::kBitcastConvert ? 0 : Elements(instruction.shape());
    case HloOpcodeClass::kElementwiseOther:
      // map applies its computation to each element; copy moves data.
      return opcode == HloOpcode::kMap && instruction.to_apply() != nullptr
                 ? Elements(instruction.shape()) *
                       std::max<int64_t>(FlopCount(*instruction.to_apply()), 1)
                 : 0;
    default:
      return 0;
  }
}

int64_t FlopCount(const HloComputation& computation) {
  int64_t flops = 0;
  for (const HloInstruction* instruction : computation.instructions()) {
    flops += FlopCount(*instruction);
  }
  return flops;
}

}  // namespace hmo
