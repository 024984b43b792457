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
//
// When the input and the output are both most-minor along a dimension the
// window moves over by one element (stride 1, no base dilation), the
// kernel takes kReduceWindowLanes consecutive outputs along it at once:
// their accumulators advance together over the window positions, each
// position reading consecutive input elements. Every output still combines
// its window in the same order; only the outputs interleave. (One output
// at a time reads a window of elements a row apart each: for windows of
// many rows, lines of one L1 set that evict each other before the next
// output reads them again.)

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hmo/codegen/element_types.h"
#include "hmo/codegen/op_emitters.h"
#include "hmo/codegen/window_loops.h"
#include "hmo/base/status_macros.h"

namespace hmo::codegen {
namespace {

constexpr int64_t kReduceWindowLanes = 16;

// The dimension along which `rw` takes outputs in lanes, or -1.
int64_t LaneDimension(const HloInstruction& rw, const Shape& output) {
  const int64_t minor = MostMinorDimensionOfMoreThanOneIndex(output);
  if (minor < 0 || output.dimensions(static_cast<int>(minor)) < kReduceWindowLanes) return -1;
  const int64_t input_minor = MostMinorDimensionOfMoreThanOneIndex(rw.operand(0)->shape());
  const WindowDimension& window = rw.window().dimensions[minor];
  if (input_minor != minor || window.stride != 1 || window.base_dilation != 1) return -1;
  return minor;
}

}  // namespace

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

  // (Lanes are for loops a thread runs over many outputs, the CPU's; a GPU
  // thread takes one output, its neighbours the next ones.)
  const int64_t lane_dimension =
      context.parallel_iterations_run_concurrently() ? -1 : LaneDimension(rw, outputs[0].shape());
  if (lane_dimension >= 0) {
    std::vector<llvm::AllocaInst*> lanes;
    for (int64_t i = 0; i < n; ++i) {
      llvm::Type* type = accumulators[i]->getAllocatedType();
      lanes.push_back(context.EmitEntryAlloca(llvm::ArrayType::get(type, kReduceWindowLanes),
                                              "reduce_window.lanes" + std::to_string(i)));
    }
    const int64_t size = outputs[0].shape().dimensions(static_cast<int>(lane_dimension));
    Shape blocks = outputs[0].shape();
    (*blocks.mutable_dimensions())[lane_dimension] =
        (size + kReduceWindowLanes - 1) / kReduceWindowLanes;
    return context.EmitParallelLoop(
        "reduce_window", blocks, [&](const IrArray::Index& block) -> absl::Status {
          llvm::Value* first = b.CreateMul(block[lane_dimension], I64(b, kReduceWindowLanes));
          llvm::Value* count = I64(b, kReduceWindowLanes);
          if (size % kReduceWindowLanes != 0) {
            llvm::Value* left = b.CreateSub(I64(b, size), first);
            count = b.CreateSelect(b.CreateICmpSLT(left, count), left, count);
          }
          // Calls body(lane, output index) for every lane of the block.
          auto for_each_lane =
              [&](const std::function<absl::Status(llvm::Value*, const IrArray::Index&)>& body) {
                return context.EmitForLoop("reduce_window.lane", I64(b, 0), count, 1,
                                           [&](llvm::Value* lane) -> absl::Status {
                                             IrArray::Index out_index = block;
                                             out_index[lane_dimension] = b.CreateAdd(first, lane);
                                             return body(lane, out_index);
                                           });
              };
          auto lane_accumulators = [&](llvm::Value* lane) {
            std::vector<Accumulator> at_lane;
            for (int64_t i = 0; i < n; ++i) {
              llvm::Type* type = lanes[i]->getAllocatedType();
              at_lane.push_back(
                  Accumulator{accumulators[i]->getAllocatedType(),
                              b.CreateInBoundsGEP(type, lanes[i], {I64(b, 0), lane})});
            }
            return at_lane;
          };
          HMO_RETURN_IF_ERROR(
              for_each_lane([&](llvm::Value* lane, const IrArray::Index&) -> absl::Status {
                const std::vector<Accumulator> at_lane = lane_accumulators(lane);
                for (int64_t i = 0; i < n; ++i) {
                  b.CreateStore(inits[i].EmitReadElement({}, b), at_lane[i].address);
                }
                return absl::OkStatus();
              }));
          HMO_RETURN_IF_ERROR(EmitLoopsOverSizes(
              context, "reduce_window.w", window_sizes,
              [&](const std::vector<llvm::Value*>& w) -> absl::Status {
                return for_each_lane(
                    [&](llvm::Value* lane, const IrArray::Index& out_index) -> absl::Status {
                      const WindowRead read =
                          EmitWindowRead(b, window, input_shape, outputs[0].shape(), out_index, w);
                      return EmitIf(context, read.valid, "reduce_window.in", [&]() -> absl::Status {
                        return EmitAccumulateStep(context, rw, lane_accumulators(lane), inputs,
                                                  read.index);
                      });
                    });
              }));
          return for_each_lane(
              [&](llvm::Value* lane, const IrArray::Index& out_index) -> absl::Status {
                const std::vector<Accumulator> at_lane = lane_accumulators(lane);
                for (int64_t i = 0; i < n; ++i) {
                  outputs[i].EmitWriteElement(out_index,
                                              b.CreateLoad(at_lane[i].type, at_lane[i].address), b);
                }
                return absl::OkStatus();
              });
        });
  }

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
