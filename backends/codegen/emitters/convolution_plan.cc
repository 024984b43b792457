#include "hmo/codegen/convolution_plan.h"

#include <cstdint>
#include <vector>

#include "hmo/ir/layout.h"
#include "hmo/ir/shape.h"

namespace hmo::codegen {
namespace {

bool IsRowMajor(const Shape& shape) {
  const std::vector<int64_t> m2m = ShapeUtil::LayoutOrDefault(shape).minor_to_major();
  const int64_t rank = static_cast<int64_t>(shape.dimensions().size());
  for (int64_t i = 0; i < rank; ++i) {
    if (m2m[i] != rank - 1 - i) return false;
  }
  return true;
}

// The runtime's convolutions, one row per element type.
struct RuntimeConvolution {
  PrimitiveType type;
  const char* function;
  const char* epilogue_function;
};
constexpr RuntimeConvolution kRuntimeConvolutions[] = {
    {PrimitiveType::F32, "__hmo_cpu_conv2d_f32", "__hmo_cpu_conv2d_epilogue_f32"},
    {PrimitiveType::BF16, "__hmo_cpu_conv2d_bf16", "__hmo_cpu_conv2d_epilogue_bf16"},
    {PrimitiveType::F16, "__hmo_cpu_conv2d_f16", "__hmo_cpu_conv2d_epilogue_f16"},
};

}  // namespace

ConvolutionDimensionNumbers RuntimeConvolutionDimensionNumbers() {
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = 0;
  d.input_spatial_dimensions = {1, 2};
  d.input_feature_dimension = 3;
  d.kernel_spatial_dimensions = {0, 1};
  d.kernel_input_feature_dimension = 2;
  d.kernel_output_feature_dimension = 3;
  d.output_batch_dimension = 0;
  d.output_spatial_dimensions = {1, 2};
  d.output_feature_dimension = 3;
  return d;
}

bool IsRuntimeConvolution2D(const HloInstruction& conv) {
  const Shape& lhs = conv.operand(0)->shape();
  const Shape& rhs = conv.operand(1)->shape();
  const Shape& out = conv.shape();
  const PrimitiveType type = out.element_type();
  if (RuntimeConvolutionFunction(type, /*with_epilogue=*/false) == nullptr ||
      lhs.element_type() != type || rhs.element_type() != type) {
    return false;
  }
  if (lhs.dimensions().size() != 4 || conv.batch_group_count() != 1) return false;
  if (!IsRowMajor(lhs) || !IsRowMajor(rhs) || !IsRowMajor(out)) return false;
  for (const WindowDimension& w : conv.window().dimensions) {
    if (w.window_reversal) return false;
  }
  return conv.convolution_dimension_numbers() == RuntimeConvolutionDimensionNumbers();
}

const char* RuntimeConvolutionFunction(PrimitiveType type, bool with_epilogue) {
  for (const RuntimeConvolution& convolution : kRuntimeConvolutions) {
    if (convolution.type == type) {
      return with_epilogue ? convolution.epilogue_function : convolution.function;
    }
  }
  return nullptr;
}

}  // namespace hmo::codegen
