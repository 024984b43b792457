// Kernel body of scatter (op_emitters.h), with XLA's full dimension numbers.
//
// scatter(operands[0..N), scatter_indices, updates[0..N)), to_apply=f:
// the output starts as a copy of the operands (skipped when the output
// already lives in operand i's memory: the update is then in place; done by
// the launcher before the kernel when the target says so), then, for every
// update index U (in order where the parallel loop is sequential): the
// update scatter dimensions (those not in update_window_dims, increasing)
// give the batch index G; the scatter indices are read at G with position
// k inserted at index_vector_dim (none when it equals their rank) and start
// k addresses operand dimension scatter_dims_to_operand_dims[k]; an input
// batching dimension input_batching_dims[i] starts at G's coordinate of
// scatter_indices_batching_dims[i]. The window dimensions of U
// (update_window_dims, in order) index the operand dimensions that are
// neither inserted nor batching, increasing. As in XLA's evaluator, an
// update whose whole window does not fit in the operand at its start is
// skipped; otherwise out[start + window] = f(out..., updates...).
//
// Where iterations of the parallel loop run concurrently (GPU), two updates
// may hit one element. The update loop is parallel when that cannot change
// the result beyond what XLA leaves unspecified: unique_indices=true, or a
// combiner that returns the update (which duplicate wins is unspecified).
// A combiner that is one add of the two parameters on f32/f64/s32/u32/s64/
// u64 (one operand) is parallel with atomicrmw add. Any other combiner runs
// the whole update loop in one thread (EmitOnce).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/element_types.h"
#include "hmo/codegen/op_emitters.h"
#include "hmo/codegen/window_loops.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/layout.h"

namespace hmo::codegen {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

enum class UpdateLoop { kParallel, kAtomicAdd, kOneThread };

bool IsParameter(const HloInstruction* instruction, int64_t number) {
  return instruction->opcode() == HloOpcode::kParameter &&
         instruction->parameter_number() == number;
}

UpdateLoop ChooseUpdateLoop(const KernelEmitContext& context, const HloInstruction& scatter,
                            int64_t n) {
  if (!context.parallel_iterations_run_concurrently() || scatter.unique_indices())
    return UpdateLoop::kParallel;
  const HloComputation& combiner = *scatter.to_apply();
  const HloInstruction* root = combiner.root_instruction();
  if (n != 1 || combiner.num_parameters() != 2 || root == nullptr) return UpdateLoop::kOneThread;
  if (IsParameter(root, 1)) return UpdateLoop::kParallel;  // overwrite
  const PrimitiveType type =
      ShapeUtil::GetSubshape(scatter.shape(),
                             scatter.shape().IsTuple() ? ShapeIndex{0} : ShapeIndex{})
          .element_type();
  const bool atomic_type = type == PrimitiveType::F32 || type == PrimitiveType::F64 ||
                           type == PrimitiveType::S32 || type == PrimitiveType::U32 ||
                           type == PrimitiveType::S64 || type == PrimitiveType::U64;
  if (atomic_type && root->opcode() == HloOpcode::kAdd && root->shape().element_type() == type &&
      root->operand_count() == 2 &&
      ((IsParameter(root->operand(0), 0) && IsParameter(root->operand(1), 1)) ||
       (IsParameter(root->operand(0), 1) && IsParameter(root->operand(1), 0)))) {
    return UpdateLoop::kAtomicAdd;
  }
  return UpdateLoop::kOneThread;
}

// Copies `source` into `destination` unless both are the same memory.
absl::Status EmitCopyUnlessSame(KernelEmitContext& context, const IrArray& source,
                                const IrArray& destination) {
  llvm::IRBuilder<>& b = context.builder();
  llvm::Value* same = b.CreateICmpEQ(b.CreatePtrToInt(source.base(), b.getInt64Ty()),
                                     b.CreatePtrToInt(destination.base(), b.getInt64Ty()));
  return EmitIf(context, b.CreateNot(same), "scatter.copy", [&]() -> absl::Status {
    if (source.minor_to_major() == destination.minor_to_major()) {
      const int64_t bytes = ShapeUtil::ByteSizeOf(source.shape());
      if (bytes > 0) {
        b.CreateMemCpy(destination.base(), llvm::MaybeAlign(1), source.base(), llvm::MaybeAlign(1),
                       bytes);
      }
      return absl::OkStatus();
    }
    return context.EmitLoopNest(
        "scatter.copy", destination.shape(), [&](const IrArray::Index& index) {
          destination.EmitWriteElement(index, source.EmitReadElement(index, b), b);
          return absl::OkStatus();
        });
  });
}

}  // namespace

absl::Status EmitScatter(KernelEmitContext& context) {
  const HloInstruction& scatter = context.instruction();
  const int64_t n = (scatter.operand_count() - 1) / 2;
  if (n < 1 || scatter.operand_count() != 2 * n + 1 || scatter.to_apply() == nullptr) {
    return absl::InvalidArgumentError("CPU scatter: " + scatter.name() +
                                      " needs N operands, indices, N updates and to_apply");
  }
  const ScatterDimensionNumbers& dnums = scatter.scatter_dimension_numbers();
  const Shape& operand_shape = scatter.operand(0)->shape();
  const Shape& indices_shape = scatter.operand(n)->shape();
  const Shape& update_shape = scatter.operand(n + 1)->shape();
  const int64_t operand_rank = static_cast<int64_t>(operand_shape.dimensions().size());
  const int64_t indices_rank = static_cast<int64_t>(indices_shape.dimensions().size());
  const int64_t update_rank = static_cast<int64_t>(update_shape.dimensions().size());
  llvm::IRBuilder<>& b = context.builder();

  std::vector<IrArray> outputs, updates;
  for (int64_t i = 0; i < n; ++i) {
    HMO_ASSIGN_OR_RETURN(IrArray operand, context.OperandArray(i));
    HMO_ASSIGN_OR_RETURN(IrArray output, scatter.shape().IsTuple() ? context.OutputArray({i})
                                                                   : context.OutputArray());
    HMO_ASSIGN_OR_RETURN(IrArray update, context.OperandArray(n + 1 + i));
    HMO_RETURN_IF_ERROR(context.InitializeOutputFromOperand(
        i, scatter.shape().IsTuple() ? ShapeIndex{i} : ShapeIndex{},
        [&]() { return EmitCopyUnlessSame(context, operand, output); }));
    outputs.push_back(std::move(output));
    updates.push_back(std::move(update));
  }
  HMO_ASSIGN_OR_RETURN(IrArray indices, context.OperandArray(n));
  const PrimitiveType index_type = indices.element_type();
  ElementalIrEmitter elemental(b, context.module());

  std::vector<int64_t> scatter_dims;  // update dims forming G
  for (int64_t d = 0; d < update_rank; ++d) {
    if (!Contains(dnums.update_window_dims, d)) scatter_dims.push_back(d);
  }
  std::vector<int64_t> window_operand_dims;
  for (int64_t d = 0; d < operand_rank; ++d) {
    if (!Contains(dnums.inserted_window_dims, d) && !Contains(dnums.input_batching_dims, d)) {
      window_operand_dims.push_back(d);
    }
  }
  if (window_operand_dims.size() != dnums.update_window_dims.size()) {
    return absl::InvalidArgumentError("CPU scatter: window dimensions of " + scatter.name() +
                                      " do not match the operand");
  }
  // Size of the update window along each operand dimension.
  std::vector<int64_t> window_size(operand_rank, 1);
  for (size_t i = 0; i < window_operand_dims.size(); ++i) {
    window_size[window_operand_dims[i]] = update_shape.dimensions()[dnums.update_window_dims[i]];
  }
  const bool implicit_index_vector = dnums.index_vector_dim == indices_rank;
  const int64_t index_vector_size =
      implicit_index_vector ? 1 : indices_shape.dimensions()[dnums.index_vector_dim];
  auto batch_position = [&](int64_t d) { return d < dnums.index_vector_dim ? d : d - 1; };

  const UpdateLoop update_loop = ChooseUpdateLoop(context, scatter, n);
  auto update_element = [&](const IrArray::Index& update_index) -> absl::Status {
    IrArray::Index g;
    for (int64_t d : scatter_dims) g.push_back(update_index[d]);
    std::vector<llvm::Value*> start(operand_rank, I64(b, 0));
    for (int64_t k = 0; k < index_vector_size &&
                        k < static_cast<int64_t>(dnums.scatter_dims_to_operand_dims.size());
         ++k) {
      IrArray::Index idx = g;
      if (!implicit_index_vector) idx.insert(idx.begin() + dnums.index_vector_dim, I64(b, k));
      HMO_ASSIGN_OR_RETURN(
          llvm::Value * raw,
          elemental.EmitConvert(indices.EmitReadElement(idx, b), index_type, PrimitiveType::S64));
      start[dnums.scatter_dims_to_operand_dims[k]] = raw;
    }
    for (size_t i = 0; i < dnums.input_batching_dims.size(); ++i) {
      start[dnums.input_batching_dims[i]] =
          g[batch_position(dnums.scatter_indices_batching_dims[i])];
    }
    llvm::Value* fits = b.getTrue();
    for (int64_t d = 0; d < operand_rank; ++d) {
      // 0 <= start <= dim - window (unsigned compare covers start < 0).
      fits = b.CreateAnd(
          fits, b.CreateICmpULE(start[d], I64(b, operand_shape.dimensions()[d] - window_size[d])));
    }
    for (int64_t d = 0; d < operand_rank; ++d) {
      if (operand_shape.dimensions()[d] < window_size[d]) fits = b.getFalse();
    }
    return EmitIf(context, fits, "scatter.fits", [&]() -> absl::Status {
      IrArray::Index operand_index = start;
      for (size_t i = 0; i < window_operand_dims.size(); ++i) {
        const int64_t d = window_operand_dims[i];
        operand_index[d] = b.CreateAdd(start[d], update_index[dnums.update_window_dims[i]]);
      }
      if (update_loop == UpdateLoop::kAtomicAdd) {
        llvm::Value* update = updates[0].EmitReadElement(update_index, b);
        const bool is_float = update->getType()->isFloatingPointTy();
        b.CreateAtomicRMW(is_float ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add,
                          outputs[0].EmitElementAddress(operand_index, b), update,
                          llvm::MaybeAlign(ByteWidth(outputs[0].element_type())),
                          llvm::AtomicOrdering::Monotonic);
        return absl::OkStatus();
      }
      std::vector<llvm::Value*> args;
      for (int64_t i = 0; i < n; ++i) args.push_back(outputs[i].EmitReadElement(operand_index, b));
      for (int64_t i = 0; i < n; ++i) args.push_back(updates[i].EmitReadElement(update_index, b));
      HMO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> results,
                           context.EmitScalarComputation(*scatter.to_apply(), args));
      if (static_cast<int64_t>(results.size()) != n) {
        return absl::InvalidArgumentError("CPU scatter: to_apply of " + scatter.name() +
                                          " does not return one value per operand");
      }
      for (int64_t i = 0; i < n; ++i) outputs[i].EmitWriteElement(operand_index, results[i], b);
      return absl::OkStatus();
    });
  };
  if (update_loop == UpdateLoop::kOneThread) {
    return context.EmitOnce(
        [&]() { return context.EmitLoopNest("scatter", update_shape, update_element); });
  }
  return context.EmitParallelLoop("scatter", update_shape, update_element);
}

}  // namespace hmo::codegen
