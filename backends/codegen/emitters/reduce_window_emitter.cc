// Kernel body of reduce-window (op_emitters.h).
//
// reduce-window(inputs[0..N), inits[0..N)), window, to_apply=f: output
// element o starts from the init values and combines, for every window
// position w (all window dimensions, last innermost), the input element at
// the base-dilated, padded coordinate x_d = o_d * stride_d + w_d *
// window_dilation_d - padding_low_d. Coordinates in the padding or in the
// holes of base dilation (x_d not a multiple of base_dilation_d) contribute
// nothing, as in XLA's evaluator; others read input element x_d /
// base_dilation_d.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hmo/codegen/element_types.h"
#include "hmo/codegen/op_emitters.h"
#include "hmo/codegen/window_loops.h"
#include "hmo/base/status_macros.h"

namespace hmo::codegen {

absl::Status EmitReduceWindow(KernelEmitContext& context) {
  const HloInstruction& rw = context.instruction();
  const int64_t n = rw.operand_count() / 2;
  if (n < 1 || rw.operand_count() != 2 * n || rw.to_apply() == nullptr || !rw.has_window()) {
    return absl::InvalidArgumentError("CPU reduce-window: " + rw.name() +
                                      " needs N inputs, N inits, a window and to_apply");
  }
  const Shape& input_shape = rw.operand(0)->shape();
  const int64_t rank = static_cast<int64_t>(input_shape.dimensions().size());
  const Window& window = rw.window();
  if (static_cast<int64_t>(window.dimensions.size()) != rank) {
    return absl::InvalidArgumentError("CPU reduce-window: window rank of " + rw.name() +
                                      " differs from the input rank");
  }
  llvm::IRBuilder<>& b = context.builder();
  std::vector<IrArray> inputs, inits, outputs;
  std::vector<llvm::AllocaInst*> accumulators;
  for (int64_t i = 0; i < n; ++i) {
    HMO_ASSIGN_OR_RETURN(IrArray input, context.OperandArray(i));
    HMO_ASSIGN_OR_RETURN(IrArray init, context.OperandArray(n + i));
    HMO_ASSIGN_OR_RETURN(IrArray output,
                         rw.shape().IsTuple() ? context.OutputArray({i}) : context.OutputArray());
    HMO_ASSIGN_OR_RETURN(llvm::Type * type,
                         ComputeType(init.element_type(), context.llvm_context()));
    accumulators.push_back(context.EmitEntryAlloca(type, "reduce_window.acc" + std::to_string(i)));
    inputs.push_back(std::move(input));
    inits.push_back(std::move(init));
    outputs.push_back(std::move(output));
  }
  std::vector<int64_t> window_sizes;
  for (const WindowDimension& d : window.dimensions) window_sizes.push_back(d.size);

  return context.EmitParallelLoop(
      "reduce_window", outputs[0].shape(), [&](const IrArray::Index& out_index) -> absl::Status {
        for (int64_t i = 0; i < n; ++i)
          b.CreateStore(inits[i].EmitReadElement({}, b), accumulators[i]);
        HMO_RETURN_IF_ERROR(EmitLoopsOverSizes(
            context, "reduce_window.w", window_sizes,
            [&](const std::vector<llvm::Value*>& w) -> absl::Status {
              const WindowRead read =
                  EmitWindowRead(b, window, input_shape, outputs[0].shape(), out_index, w);
              return EmitIf(context, read.valid, "reduce_window.in", [&]() -> absl::Status {
                return EmitAccumulateStep(context, rw, accumulators, inputs, read.index);
              });
            }));
        for (int64_t i = 0; i < n; ++i) {
          outputs[i].EmitWriteElement(
              out_index, b.CreateLoad(accumulators[i]->getAllocatedType(), accumulators[i]), b);
        }
        return absl::OkStatus();
      });
}

}  // namespace hmo::codegen
