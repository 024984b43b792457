// Kernel body of dot (op_emitters.h).
//
// Output dimensions are [batch dims (in dot-dimension-number order), lhs free
// dims (increasing), rhs free dims (increasing)], as in XLA. When a runtime
// GEMM takes the element types (RuntimeGemmElementTypes: f32, f64, bf16
// operands into f32, s8 into s32) and memory already holds row-major matrices in the
// order a GEMM wants (gemm_plan.h) and the target has the runtime, the kernel
// is one call of the runtime GEMM; otherwise it is a parallel loop over the
// output with an inner loop nest over the contracting dimensions.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/element_types.h"
#include "hmo/codegen/gemm_plan.h"
#include "hmo/codegen/op_emitters.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/layout.h"

namespace hmo::codegen {
namespace {

absl::Status EmitGemmCall(KernelEmitContext& context, GemmElementTypes types,
                          const GemmPlan& plan) {
  llvm::IRBuilder<>& b = context.builder();
  HMO_ASSIGN_OR_RETURN(IrArray out, context.OutputArray());
  HMO_ASSIGN_OR_RETURN(IrArray lhs, context.OperandArray(0));
  HMO_ASSIGN_OR_RETURN(IrArray rhs, context.OperandArray(1));
  llvm::Type* ptr = b.getInt8PtrTy();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* i32 = b.getInt32Ty();
  llvm::FunctionType* type = llvm::FunctionType::get(
      b.getVoidTy(), {ptr, ptr, ptr, i64, i64, i64, i64, i32, i32}, /*isVarArg=*/false);
  llvm::FunctionCallee gemm =
      context.GetOrDeclareFunction(RuntimeGemmFunction(types, /*with_epilogue=*/false), type);
  b.CreateCall(gemm, {b.CreateBitCast(out.base(), ptr), b.CreateBitCast(lhs.base(), ptr),
                      b.CreateBitCast(rhs.base(), ptr), I64(b, plan.batch), I64(b, plan.m),
                      I64(b, plan.n), I64(b, plan.k), b.getInt32(plan.transpose_lhs ? 1 : 0),
                      b.getInt32(plan.transpose_rhs ? 1 : 0)});
  return absl::OkStatus();
}

// Calls body(ivs) for every index of `sizes` (one loop per entry).
absl::Status EmitIndexLoops(
    KernelEmitContext& context, const std::vector<int64_t>& sizes, std::vector<llvm::Value*>& ivs,
    const std::function<absl::Status(const std::vector<llvm::Value*>&)>& body) {
  if (ivs.size() == sizes.size()) return body(ivs);
  const int64_t size = sizes[ivs.size()];
  llvm::IRBuilder<>& b = context.builder();
  return context.EmitForLoop("dot.k", I64(b, 0), I64(b, size), 1, [&](llvm::Value* iv) {
    ivs.push_back(iv);
    absl::Status st = EmitIndexLoops(context, sizes, ivs, body);
    ivs.pop_back();
    return st;
  });
}

absl::Status EmitDotLoops(KernelEmitContext& context) {
  const HloInstruction& dot = context.instruction();
  const DotDimensionNumbers& dnums = dot.dot_dimension_numbers();
  const Shape& lhs_shape = dot.operand(0)->shape();
  const Shape& rhs_shape = dot.operand(1)->shape();
  const PrimitiveType out_type = dot.shape().element_type();
  const PrimitiveType lhs_type = lhs_shape.element_type();
  const PrimitiveType rhs_type = rhs_shape.element_type();
  if (out_type == PrimitiveType::PRED || !IsSupportedElementType(out_type) ||
      !IsSupportedElementType(lhs_type) || !IsSupportedElementType(rhs_type)) {
    return absl::UnimplementedError("CPU dot: element types of " + dot.name() +
                                    " are not supported");
  }
  llvm::IRBuilder<>& b = context.builder();
  HMO_ASSIGN_OR_RETURN(IrArray out, context.OutputArray());
  HMO_ASSIGN_OR_RETURN(IrArray lhs, context.OperandArray(0));
  HMO_ASSIGN_OR_RETURN(IrArray rhs, context.OperandArray(1));
  // The accumulator is the output's compute type: f32 for f16/bf16/f32, f64
  // for f64, the output's integer width otherwise (wrapping sums equal wider
  // sums truncated, so narrower integers lose nothing).
  HMO_ASSIGN_OR_RETURN(llvm::Type * acc_type, ComputeType(out_type, context.llvm_context()));
  const bool is_float = acc_type->isFloatingPointTy();
  llvm::AllocaInst* acc = context.EmitEntryAlloca(acc_type, "dot.acc");
  ElementalIrEmitter elemental(b, context.module());

  const std::vector<int64_t> lhs_free = DotFreeDimensions(
      lhs_shape.dimensions().size(), dnums.lhs_batch_dimensions, dnums.lhs_contracting_dimensions);
  const std::vector<int64_t> rhs_free = DotFreeDimensions(
      rhs_shape.dimensions().size(), dnums.rhs_batch_dimensions, dnums.rhs_contracting_dimensions);
  std::vector<int64_t> contracting_sizes;
  for (int64_t d : dnums.lhs_contracting_dimensions)
    contracting_sizes.push_back(lhs_shape.dimensions()[d]);

  return context.EmitParallelLoop(
      "dot", dot.shape(), [&](const IrArray::Index& out_index) -> absl::Status {
        IrArray::Index lhs_index(lhs_shape.dimensions().size());
        IrArray::Index rhs_index(rhs_shape.dimensions().size());
        size_t o = 0;
        for (size_t i = 0; i < dnums.lhs_batch_dimensions.size(); ++i, ++o) {
          lhs_index[dnums.lhs_batch_dimensions[i]] = out_index[o];
          rhs_index[dnums.rhs_batch_dimensions[i]] = out_index[o];
        }
        for (int64_t d : lhs_free) lhs_index[d] = out_index[o++];
        for (int64_t d : rhs_free) rhs_index[d] = out_index[o++];
        b.CreateStore(
            is_float ? llvm::ConstantFP::get(acc_type, 0.0) : llvm::ConstantInt::get(acc_type, 0),
            acc);
        std::vector<llvm::Value*> ivs;
        HMO_RETURN_IF_ERROR(EmitIndexLoops(
            context, contracting_sizes, ivs,
            [&](const std::vector<llvm::Value*>& k) -> absl::Status {
              for (size_t i = 0; i < k.size(); ++i) {
                lhs_index[dnums.lhs_contracting_dimensions[i]] = k[i];
                rhs_index[dnums.rhs_contracting_dimensions[i]] = k[i];
              }
              HMO_ASSIGN_OR_RETURN(
                  llvm::Value * x,
                  elemental.EmitConvert(lhs.EmitReadElement(lhs_index, b), lhs_type, out_type));
              HMO_ASSIGN_OR_RETURN(
                  llvm::Value * y,
                  elemental.EmitConvert(rhs.EmitReadElement(rhs_index, b), rhs_type, out_type));
              llvm::Value* sum = b.CreateLoad(acc_type, acc);
              llvm::Value* updated = is_float ? b.CreateFAdd(sum, b.CreateFMul(x, y))
                                              : b.CreateAdd(sum, b.CreateMul(x, y));
              b.CreateStore(updated, acc);
              return absl::OkStatus();
            }));
        out.EmitWriteElement(out_index, b.CreateLoad(acc_type, acc), b);
        return absl::OkStatus();
      });
}

}  // namespace

absl::Status EmitDot(KernelEmitContext& context) {
  const HloInstruction& dot = context.instruction();
  const std::optional<GemmElementTypes> types = RuntimeGemmElementTypes(dot);
  if (types.has_value() && context.runtime_calls_available()) {
    if (std::optional<GemmPlan> plan = GemmPlanFor(dot))
      return EmitGemmCall(context, *types, *plan);
  }
  return EmitDotLoops(context);
}

}  // namespace hmo::codegen
