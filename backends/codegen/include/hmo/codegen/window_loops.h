#ifndef HMO_CODEGEN_WINDOW_LOOPS_H_
#define HMO_CODEGEN_WINDOW_LOOPS_H_

// Helpers shared by the windowed and indexed op emitters (reduce-window,
// convolution, gather, scatter) and the elemental emitter's reduce-window:
// nested counted loops over a list of sizes, the input element a window
// position reads, and a guarded block that runs only when a condition holds.

#include <cstdint>
#include <string>
#include <functional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "hmo/codegen/element_generator.h"
#include "hmo/codegen/kernel_emit_context.h"
#include "hmo/codegen/loop_emitter.h"

namespace hmo::codegen {

// Calls body(ivs) once for every index of `sizes`: one i64 loop per entry,
// the last one innermost. With no sizes, calls body({}) once.
inline absl::Status EmitLoopsOverSizes(
    llvm::IRBuilderBase& b, std::string_view name, const std::vector<int64_t>& sizes,
    const std::function<absl::Status(const std::vector<llvm::Value*>&)>& body) {
  std::vector<llvm::Value*> ivs;
  std::function<absl::Status()> level = [&]() -> absl::Status {
    if (ivs.size() == sizes.size()) return body(ivs);
    return EmitForLoop(b, name, I64(b, 0), I64(b, sizes[ivs.size()]), 1,
                       [&](llvm::Value* iv) -> absl::Status {
                         ivs.push_back(iv);
                         absl::Status st = level();
                         ivs.pop_back();
                         return st;
                       });
  };
  return level();
}

inline absl::Status EmitLoopsOverSizes(
    KernelEmitContext& context, std::string_view name, const std::vector<int64_t>& sizes,
    const std::function<absl::Status(const std::vector<llvm::Value*>&)>& body) {
  return EmitLoopsOverSizes(context.builder(), name, sizes, body);
}

// The input element window position `w` of reduce-window output element
// `out_index` reads: x_d = o_d * stride_d + w_d * window_dilation_d -
// padding_low_d, divided by base_dilation_d; `valid` (i1) is false when x_d
// lies in the padding or in a hole of base dilation.
struct WindowRead {
  IrArray::Index index;
  llvm::Value* valid = nullptr;
};

inline WindowRead EmitWindowRead(llvm::IRBuilderBase& b, const Window& window,
                                 const Shape& input_shape, const Shape& output_shape,
                                 const IrArray::Index& out_index,
                                 const std::vector<llvm::Value*>& w) {
  const int64_t rank = static_cast<int64_t>(input_shape.dimensions().size());
  WindowRead read{IrArray::Index(rank), b.getTrue()};
  for (int64_t d = 0; d < rank; ++d) {
    const WindowDimension& wd = window.dimensions[d];
    llvm::Value* x = b.CreateSub(b.CreateAdd(b.CreateMul(out_index[d], I64(b, wd.stride)),
                                             b.CreateMul(w[d], I64(b, wd.window_dilation))),
                                 I64(b, wd.padding_low));
    if (wd.base_dilation > 1) {
      read.valid = b.CreateAnd(
          read.valid, b.CreateICmpEQ(b.CreateSRem(x, I64(b, wd.base_dilation)), I64(b, 0)));
      x = b.CreateSDiv(x, I64(b, wd.base_dilation));
    }
    // Dimensions whose window never leaves the input need no check (fewer
    // i1 values: LLVM 14's NVPTX selector fails on some combinations of
    // them).
    const int64_t out_extent = output_shape.dimensions()[d];
    const bool always_inside =
        wd.base_dilation == 1 && wd.padding_low <= 0 &&
        (out_extent - 1) * wd.stride + (wd.size - 1) * wd.window_dilation - wd.padding_low <
            input_shape.dimensions()[d];
    if (!always_inside) {
      read.valid = b.CreateAnd(read.valid, b.CreateICmpULT(x, I64(b, input_shape.dimensions()[d])));
    }
    read.index[d] = x;
  }
  return read;
}

// Emits `body` in a block entered only when `condition` (i1) holds; the
// builder continues after it either way.
inline absl::Status EmitIf(KernelEmitContext& context, llvm::Value* condition,
                           std::string_view name, const std::function<absl::Status()>& body) {
  llvm::IRBuilder<>& b = context.builder();
  llvm::Function* function = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* then_block =
      llvm::BasicBlock::Create(context.llvm_context(), std::string(name) + ".then", function);
  llvm::BasicBlock* after_block =
      llvm::BasicBlock::Create(context.llvm_context(), std::string(name) + ".after", function);
  b.CreateCondBr(condition, then_block, after_block);
  b.SetInsertPoint(then_block);
  absl::Status st = body();
  if (!st.ok()) return st;
  b.CreateBr(after_block);
  b.SetInsertPoint(after_block);
  return absl::OkStatus();
}

// `value` (i64) in [0, limit).
inline llvm::Value* EmitInRange(llvm::IRBuilderBase& b, llvm::Value* value, int64_t limit) {
  return b.CreateICmpULT(value, I64(b, limit));
}

// An accumulator: a `type` value at `address`.
struct Accumulator {
  llvm::Type* type = nullptr;
  llvm::Value* address = nullptr;
};

// One reduction step of reduce and reduce-window: the N accumulators
// become to_apply(accumulators..., inputs[i](index)...), each input a
// compute-type element generator (an array reader, or a fused expression).
inline absl::Status EmitAccumulateStep(KernelEmitContext& context, const HloInstruction& op,
                                       const std::vector<Accumulator>& accumulators,
                                       const std::vector<ElementGenerator>& inputs,
                                       const IrArray::Index& index) {
  llvm::IRBuilderBase& b = context.builder();
  const size_t n = accumulators.size();
  std::vector<llvm::Value*> args;
  for (const Accumulator& accumulator : accumulators) {
    args.push_back(b.CreateLoad(accumulator.type, accumulator.address));
  }
  for (size_t i = 0; i < n; ++i) {
    absl::StatusOr<llvm::Value*> value = inputs[i](index);
    if (!value.ok()) return value.status();
    args.push_back(*value);
  }
  absl::StatusOr<std::vector<llvm::Value*>> results =
      context.EmitScalarComputation(*op.to_apply(), args);
  if (!results.ok()) return results.status();
  if (results->size() != n) {
    return absl::InvalidArgumentError("CPU " + std::string(HloOpcodeString(op.opcode())) +
                                      ": to_apply of " + op.name() +
                                      " does not return one value per input");
  }
  for (size_t i = 0; i < n; ++i) b.CreateStore((*results)[i], accumulators[i].address);
  return absl::OkStatus();
}

// The same step with each accumulator an alloca of its type.
inline absl::Status EmitAccumulateStep(KernelEmitContext& context, const HloInstruction& op,
                                       const std::vector<llvm::AllocaInst*>& allocas,
                                       const std::vector<ElementGenerator>& inputs,
                                       const IrArray::Index& index) {
  std::vector<Accumulator> accumulators;
  for (llvm::AllocaInst* alloca : allocas) {
    accumulators.push_back(Accumulator{alloca->getAllocatedType(), alloca});
  }
  return EmitAccumulateStep(context, op, accumulators, inputs, index);
}

// The same step reading arrays.
template <typename Accumulators>
absl::Status EmitAccumulateStep(KernelEmitContext& context, const HloInstruction& op,
                                const Accumulators& accumulators,
                                const std::vector<IrArray>& inputs, const IrArray::Index& index) {
  llvm::IRBuilderBase& b = context.builder();
  std::vector<ElementGenerator> readers;
  for (const IrArray& input : inputs) {
    readers.push_back([&b, input](const IrArray::Index& at) -> absl::StatusOr<llvm::Value*> {
      return input.EmitReadElement(at, b);
    });
  }
  return EmitAccumulateStep(context, op, accumulators, readers, index);
}

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_WINDOW_LOOPS_H_
