// Kernel body of convolution (op_emitters.h).
//
// The 2-D convolution the runtime computes (convolution_plan.h) calls
// __hmo_cpu_conv2d_f32 / _bf16 / _f16 (runtime_functions.h,
// RuntimeConvolutionFunction) when the target has the runtime. Everything
// else (other dim_labels, ranks, layouts, element types, batch groups; any
// convolution without the runtime) is a parallel loop over the output with
// inner loops, following XLA's evaluator:
//   out[b, o, s...] = sum over input features z of the group, kernel
//                     positions k: lhs[b', g*Cg + z, x...] * rhs[z, o, k...]
// with feature group g = o / (O / feature_group_count), Cg the kernel's input
// feature size, x_d = s_d * stride_d + k_d * window_dilation_d - padding_low_d
// in the base-dilated input (positions in padding or in dilation holes
// contribute nothing), kernel position k reversed when window_reversal is
// set, and b' = b + (o / (O / batch_groups)) * (input_batch / batch_groups)
// when batch_group_count > 1 (input batch block of o's batch group).
// Accumulation is in f32 for f16/bf16/f32, f64 for f64, the output's integer
// type for integers.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "hmo/codegen/convolution_plan.h"
#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/element_types.h"
#include "hmo/codegen/op_emitters.h"
#include "hmo/codegen/window_loops.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/layout.h"
#include "hmo/codegen/runtime/runtime_functions.h"

namespace hmo::codegen {

llvm::Value* EmitRuntimeConv2DShape(KernelEmitContext& context, const HloInstruction& conv) {
  const Shape& lhs = conv.operand(0)->shape();
  const Shape& rhs = conv.operand(1)->shape();
  const Shape& out = conv.shape();
  const std::vector<WindowDimension>& w = conv.window().dimensions;
  const std::vector<int64_t> fields = {
      lhs.dimensions()[0], lhs.dimensions()[1],  lhs.dimensions()[2],  lhs.dimensions()[3],
      rhs.dimensions()[0], rhs.dimensions()[1],  out.dimensions()[3],  out.dimensions()[1],
      out.dimensions()[2], w[0].stride,          w[1].stride,          w[0].padding_low,
      w[0].padding_high,   w[1].padding_low,     w[1].padding_high,    w[0].base_dilation,
      w[1].base_dilation,  w[0].window_dilation, w[1].window_dilation, conv.feature_group_count()};
  static_assert(sizeof(HmoCpuConv2DShape) == 20 * sizeof(int64_t),
                "HmoCpuConv2DShape is twenty int64_t fields");
  llvm::IRBuilder<>& b = context.builder();
  llvm::ArrayType* shape_type = llvm::ArrayType::get(b.getInt64Ty(), fields.size());
  llvm::AllocaInst* shape = context.EmitEntryAlloca(shape_type, "conv.shape");
  for (size_t i = 0; i < fields.size(); ++i) {
    b.CreateStore(I64(b, fields[i]), b.CreateConstInBoundsGEP2_64(shape_type, shape, 0, i));
  }
  return b.CreateBitCast(shape, b.getInt8PtrTy());
}

namespace {

absl::Status EmitRuntimeConv2D(KernelEmitContext& context) {
  const HloInstruction& conv = context.instruction();
  llvm::IRBuilder<>& b = context.builder();
  llvm::Value* shape = EmitRuntimeConv2DShape(context, conv);
  HMO_ASSIGN_OR_RETURN(IrArray output, context.OutputArray());
  HMO_ASSIGN_OR_RETURN(IrArray input, context.OperandArray(0));
  HMO_ASSIGN_OR_RETURN(IrArray filter, context.OperandArray(1));
  llvm::Type* ptr = b.getInt8PtrTy();
  llvm::FunctionType* type =
      llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr, ptr}, /*isVarArg=*/false);
  llvm::FunctionCallee function = context.GetOrDeclareFunction(
      RuntimeConvolutionFunction(conv.shape().element_type(), /*with_epilogue=*/false), type);
  b.CreateCall(function, {b.CreateBitCast(output.base(), ptr), b.CreateBitCast(input.base(), ptr),
                          b.CreateBitCast(filter.base(), ptr), shape});
  return absl::OkStatus();
}

absl::Status EmitConvolutionLoops(KernelEmitContext& context) {
  const HloInstruction& conv = context.instruction();
  const ConvolutionDimensionNumbers& dn = conv.convolution_dimension_numbers();
  const Shape& lhs_shape = conv.operand(0)->shape();
  const Shape& rhs_shape = conv.operand(1)->shape();
  const PrimitiveType out_type = conv.shape().element_type();
  const PrimitiveType lhs_type = lhs_shape.element_type();
  const PrimitiveType rhs_type = rhs_shape.element_type();
  if (out_type == PrimitiveType::PRED || !IsSupportedElementType(out_type) ||
      !IsSupportedElementType(lhs_type) || !IsSupportedElementType(rhs_type)) {
    return absl::UnimplementedError("CPU convolution: element types of " + conv.name() +
                                    " are not supported");
  }
  const int64_t spatial_rank = static_cast<int64_t>(dn.input_spatial_dimensions.size());
  const std::vector<WindowDimension>& window = conv.window().dimensions;
  if (static_cast<int64_t>(window.size()) != spatial_rank) {
    return absl::InvalidArgumentError("CPU convolution: window rank of " + conv.name() +
                                      " differs from its spatial rank");
  }
  llvm::IRBuilder<>& b = context.builder();
  HMO_ASSIGN_OR_RETURN(IrArray output, context.OutputArray());
  HMO_ASSIGN_OR_RETURN(IrArray lhs, context.OperandArray(0));
  HMO_ASSIGN_OR_RETURN(IrArray rhs, context.OperandArray(1));
  HMO_ASSIGN_OR_RETURN(llvm::Type * acc_type, ComputeType(out_type, context.llvm_context()));
  const bool is_float = acc_type->isFloatingPointTy();
  llvm::AllocaInst* acc = context.EmitEntryAlloca(acc_type, "conv.acc");
  ElementalIrEmitter elemental(b, context.module());

  const int64_t input_batch = lhs_shape.dimensions()[dn.input_batch_dimension];
  const int64_t input_features = lhs_shape.dimensions()[dn.input_feature_dimension];
  const int64_t kernel_input_features = rhs_shape.dimensions()[dn.kernel_input_feature_dimension];
  const int64_t output_features = rhs_shape.dimensions()[dn.kernel_output_feature_dimension];
  const int64_t feature_groups = conv.feature_group_count();
  const int64_t batch_groups = conv.batch_group_count();
  if (feature_groups < 1 || batch_groups < 1 || output_features % feature_groups != 0 ||
      input_batch % batch_groups != 0 || output_features % batch_groups != 0 ||
      input_features != kernel_input_features * feature_groups) {
    return absl::InvalidArgumentError("CPU convolution: inconsistent group counts in " +
                                      conv.name());
  }
  const int64_t output_group_size = output_features / feature_groups;
  const int64_t batch_group_size = input_batch / batch_groups;

  // Loop sizes: input features of the group, then the kernel's spatial dims.
  std::vector<int64_t> reduction_sizes = {kernel_input_features};
  for (int64_t s = 0; s < spatial_rank; ++s) {
    reduction_sizes.push_back(rhs_shape.dimensions()[dn.kernel_spatial_dimensions[s]]);
  }

  return context.EmitParallelLoop(
      "conv", conv.shape(), [&](const IrArray::Index& out_index) -> absl::Status {
        llvm::Value* out_feature = out_index[dn.output_feature_dimension];
        llvm::Value* group = b.CreateSDiv(out_feature, I64(b, output_group_size));
        llvm::Value* batch = out_index[dn.output_batch_dimension];
        if (batch_groups > 1) {
          llvm::Value* batch_group =
              b.CreateSDiv(out_feature, I64(b, output_features / batch_groups));
          batch = b.CreateAdd(batch, b.CreateMul(batch_group, I64(b, batch_group_size)));
        }
        b.CreateStore(
            is_float ? llvm::ConstantFP::get(acc_type, 0.0) : llvm::ConstantInt::get(acc_type, 0),
            acc);
        HMO_RETURN_IF_ERROR(EmitLoopsOverSizes(
            context, "conv.r", reduction_sizes,
            [&](const std::vector<llvm::Value*>& r) -> absl::Status {
              IrArray::Index lhs_index(lhs_shape.dimensions().size());
              IrArray::Index rhs_index(rhs_shape.dimensions().size());
              lhs_index[dn.input_batch_dimension] = batch;
              lhs_index[dn.input_feature_dimension] =
                  b.CreateAdd(b.CreateMul(group, I64(b, kernel_input_features)), r[0]);
              rhs_index[dn.kernel_input_feature_dimension] = r[0];
              rhs_index[dn.kernel_output_feature_dimension] = out_feature;
              llvm::Value* valid = b.getTrue();
              for (int64_t s = 0; s < spatial_rank; ++s) {
                const WindowDimension& w = window[s];
                llvm::Value* k = r[1 + s];
                llvm::Value* x = b.CreateSub(
                    b.CreateAdd(
                        b.CreateMul(out_index[dn.output_spatial_dimensions[s]], I64(b, w.stride)),
                        b.CreateMul(k, I64(b, w.window_dilation))),
                    I64(b, w.padding_low));
                if (w.base_dilation > 1) {
                  valid = b.CreateAnd(
                      valid, b.CreateICmpEQ(b.CreateSRem(x, I64(b, w.base_dilation)), I64(b, 0)));
                  x = b.CreateSDiv(x, I64(b, w.base_dilation));
                }
                valid = b.CreateAnd(
                    valid,
                    EmitInRange(b, x, lhs_shape.dimensions()[dn.input_spatial_dimensions[s]]));
                lhs_index[dn.input_spatial_dimensions[s]] = x;
                const int64_t kernel_size = rhs_shape.dimensions()[dn.kernel_spatial_dimensions[s]];
                rhs_index[dn.kernel_spatial_dimensions[s]] =
                    w.window_reversal ? b.CreateSub(I64(b, kernel_size - 1), k) : k;
              }
              return EmitIf(context, valid, "conv.in", [&]() -> absl::Status {
                HMO_ASSIGN_OR_RETURN(
                    llvm::Value * x,
                    elemental.EmitConvert(lhs.EmitReadElement(lhs_index, b), lhs_type, out_type));
                HMO_ASSIGN_OR_RETURN(
                    llvm::Value * y,
                    elemental.EmitConvert(rhs.EmitReadElement(rhs_index, b), rhs_type, out_type));
                llvm::Value* sum = b.CreateLoad(acc_type, acc);
                b.CreateStore(is_float ? b.CreateFAdd(sum, b.CreateFMul(x, y))
                                       : b.CreateAdd(sum, b.CreateMul(x, y)),
                              acc);
                return absl::OkStatus();
              });
            }));
        output.EmitWriteElement(out_index, b.CreateLoad(acc_type, acc), b);
        return absl::OkStatus();
      });
}

}  // namespace

absl::Status EmitConvolution(KernelEmitContext& context) {
  const HloInstruction& conv = context.instruction();
  if (!conv.has_convolution_dimension_numbers() || !conv.has_window()) {
    return absl::InvalidArgumentError("CPU convolution: " + conv.name() +
                                      " lacks dim_labels or a window");
  }
  if (context.runtime_calls_available() && IsRuntimeConvolution2D(conv)) {
    return EmitRuntimeConv2D(context);
  }
  return EmitConvolutionLoops(context);
}

}  // namespace hmo::codegen
