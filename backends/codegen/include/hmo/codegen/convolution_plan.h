#ifndef HMO_CODEGEN_CONVOLUTION_PLAN_H_
#define HMO_CODEGEN_CONVOLUTION_PLAN_H_

// Which convolutions the runtime's 2-D convolution (__hmo_cpu_conv2d_*,
// runtime_functions.h) computes: f32, or bf16 or f16 accumulated in f32, in
// TensorFlow's order (dim_labels b01f_01io->b01f), every array row-major,
// batch_group_count 1, no window reversal; any strides, padding, dilations
// and feature groups. The CPU backend emits such a convolution as one call
// (convolution_emitter.cc); its dot/convolution canonicalization rewrites
// others into this form. An output fusion of such a convolution hands each
// tile of its output to the fusion's epilogue (fusion_emitter.h).

#include "hmo/ir/dimension_numbers.h"
#include "hmo/ir/hlo_instruction.h"

namespace hmo::codegen {

// b01f_01io->b01f for two spatial dimensions.
ConvolutionDimensionNumbers RuntimeConvolutionDimensionNumbers();

// Whether `conv` (a kConvolution with dim_labels and a window) is computed by
// the runtime 2-D convolution as it stands.
bool IsRuntimeConvolution2D(const HloInstruction& conv);

// The runtime function computing an IsRuntimeConvolution2D convolution of
// element type `type` (runtime_functions.h): __hmo_cpu_conv2d_*, or with
// `with_epilogue` __hmo_cpu_conv2d_epilogue_*; null for another type.
const char* RuntimeConvolutionFunction(PrimitiveType type, bool with_epilogue);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_CONVOLUTION_PLAN_H_
