// Kernel body of select-and-scatter (op_emitters.h), the gradient of a
// max-pool.
//
// select-and-scatter(operand, source, init), window, select=s, scatter=c:
// the output (operand's shape) starts as `init` everywhere; then for each
// source element (the source has the windowed shape), the window over the
// operand at that position picks one element: the first in-bounds one,
// replaced by each later in-bounds candidate for which s(selected,
// candidate) is false; the output at the picked index becomes
// c(output, source element). Window positions in the padding take no part
// (XLA's semantics; base dilation is not part of the op).
//
// Windows overlap, so two source elements may update one output element:
// on a target whose parallel iterations run concurrently the whole kernel
// runs in one thread.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hmo/codegen/element_types.h"
#include "hmo/codegen/op_emitters.h"
#include "hmo/codegen/window_loops.h"
#include "hmo/base/status_macros.h"

namespace hmo::codegen {

absl::Status EmitSelectAndScatter(KernelEmitContext& context) {
  const HloInstruction& sas = context.instruction();
  if (sas.operand_count() != 3 || sas.called_computations().size() != 2 || !sas.shape().IsArray()) {
    return absl::InvalidArgumentError("CPU select-and-scatter: " + sas.name() +
                                      " needs operand, source, init, select and scatter");
  }
  const Shape& operand_shape = sas.operand(0)->shape();
  const int64_t rank = operand_shape.rank();
  // A scalar select-and-scatter has no window: one trivial window position.
  std::vector<WindowDimension> window(static_cast<size_t>(rank));
  if (sas.has_window()) {
    if (static_cast<int64_t>(sas.window().dimensions.size()) != rank) {
      return absl::InvalidArgumentError("CPU select-and-scatter: window rank of " + sas.name() +
                                        " differs from the operand rank");
    }
    window = sas.window().dimensions;
  }
  for (const WindowDimension& d : window) {
    if (d.base_dilation != 1) {
      return absl::UnimplementedError("CPU select-and-scatter: " + sas.name() +
                                      " has base dilation");
    }
  }
  llvm::IRBuilder<>& b = context.builder();
  HMO_ASSIGN_OR_RETURN(IrArray operand, context.OperandArray(0));
  HMO_ASSIGN_OR_RETURN(IrArray source, context.OperandArray(1));
  HMO_ASSIGN_OR_RETURN(IrArray init, context.OperandArray(2));
  HMO_ASSIGN_OR_RETURN(IrArray output, context.OutputArray());
  HMO_ASSIGN_OR_RETURN(llvm::Type * value_type,
                       ComputeType(operand.element_type(), context.llvm_context()));
  llvm::AllocaInst* selected = context.EmitEntryAlloca(value_type, "sas.selected");
  llvm::AllocaInst* has_selected = context.EmitEntryAlloca(b.getInt1Ty(), "sas.has_selected");
  std::vector<llvm::AllocaInst*> selected_index;
  for (int64_t d = 0; d < rank; ++d) {
    selected_index.push_back(
        context.EmitEntryAlloca(b.getInt64Ty(), "sas.index" + std::to_string(d)));
  }
  std::vector<int64_t> window_sizes;
  for (const WindowDimension& d : window) window_sizes.push_back(d.size == 0 ? 1 : d.size);

  auto source_element = [&](const IrArray::Index& s) -> absl::Status {
    b.CreateStore(b.getFalse(), has_selected);
    b.CreateStore(llvm::Constant::getNullValue(value_type), selected);
    for (int64_t d = 0; d < rank; ++d) b.CreateStore(I64(b, 0), selected_index[d]);
    HMO_RETURN_IF_ERROR(EmitLoopsOverSizes(
        context, "sas.w", window_sizes, [&](const std::vector<llvm::Value*>& w) -> absl::Status {
          IrArray::Index x(rank);
          llvm::Value* valid = b.getTrue();
          for (int64_t d = 0; d < rank; ++d) {
            const WindowDimension& wd = window[d];
            const int64_t stride = wd.stride == 0 ? 1 : wd.stride;
            const int64_t dilation = wd.window_dilation == 0 ? 1 : wd.window_dilation;
            x[d] = b.CreateSub(
                b.CreateAdd(b.CreateMul(s[d], I64(b, stride)), b.CreateMul(w[d], I64(b, dilation))),
                I64(b, wd.padding_low));
            valid = b.CreateAnd(valid, EmitInRange(b, x[d], operand_shape.dimensions()[d]));
          }
          return EmitIf(context, valid, "sas.in", [&]() -> absl::Status {
            llvm::Value* candidate = operand.EmitReadElement(x, b);
            llvm::Value* current = b.CreateLoad(value_type, selected);
            HMO_ASSIGN_OR_RETURN(
                std::vector<llvm::Value*> keep,
                context.EmitScalarComputation(*sas.select(), {current, candidate}));
            if (keep.size() != 1 || !keep[0]->getType()->isIntegerTy(1)) {
              return absl::InvalidArgumentError("CPU select-and-scatter: select of " + sas.name() +
                                                " does not return one pred");
            }
            llvm::Value* has = b.CreateLoad(b.getInt1Ty(), has_selected);
            llvm::Value* take = b.CreateSelect(has, b.CreateNot(keep[0]), b.getTrue());
            b.CreateStore(b.CreateSelect(take, candidate, current), selected);
            for (int64_t d = 0; d < rank; ++d) {
              llvm::Value* old = b.CreateLoad(b.getInt64Ty(), selected_index[d]);
              b.CreateStore(b.CreateSelect(take, x[d], old), selected_index[d]);
            }
            b.CreateStore(b.getTrue(), has_selected);
            return absl::OkStatus();
          });
        }));
    return EmitIf(
        context, b.CreateLoad(b.getInt1Ty(), has_selected), "sas.scatter", [&]() -> absl::Status {
          IrArray::Index target(rank);
          for (int64_t d = 0; d < rank; ++d)
            target[d] = b.CreateLoad(b.getInt64Ty(), selected_index[d]);
          HMO_ASSIGN_OR_RETURN(
              std::vector<llvm::Value*> combined,
              context.EmitScalarComputation(*sas.scatter(), {output.EmitReadElement(target, b),
                                                             source.EmitReadElement(s, b)}));
          if (combined.size() != 1) {
            return absl::InvalidArgumentError("CPU select-and-scatter: scatter of " + sas.name() +
                                              " does not return one value");
          }
          output.EmitWriteElement(target, combined[0], b);
          return absl::OkStatus();
        });
  };
  auto whole_kernel = [&]() -> absl::Status {
    HMO_RETURN_IF_ERROR(
        context.EmitLoopNest("sas.init", output.shape(), [&](const IrArray::Index& index) {
          output.EmitWriteElement(index, init.EmitReadElement({}, b), b);
          return absl::OkStatus();
        }));
    return context.EmitLoopNest("sas.source", source.shape(), source_element);
  };
  if (context.parallel_iterations_run_concurrently()) return context.EmitOnce(whole_kernel);
  return whole_kernel();
}

}  // namespace hmo::codegen
