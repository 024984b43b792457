// Kernel body of gather (op_emitters.h), with XLA's full dimension numbers.
//
// For output index O: the batch dimensions of the output (those not in
// offset_dims, in increasing order) give the batch index G. The start
// indices array is read at G with position k inserted at index_vector_dim
// (no insertion when index_vector_dim equals its rank: an implicit trailing
// size-1 index vector), for every k; start k addresses operand dimension
// start_index_map[k] and is clamped to [0, operand_dim - slice_size] as in
// XLA. An operand batching dimension operand_batching_dims[i] starts at G's
// coordinate of start_indices_batching_dims[i]. The offset dimensions of O
// (offset_dims, in order) index the operand dimensions that are neither
// collapsed nor batching, in increasing order; the operand element read is
// start + offset.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "hmo/codegen/dynamic_slicing.h"
#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/op_emitters.h"
#include "hmo/base/status_macros.h"

namespace hmo::codegen {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

absl::Status EmitGather(KernelEmitContext& context) {
  const HloInstruction& gather = context.instruction();
  const GatherDimensionNumbers& dnums = gather.gather_dimension_numbers();
  const Shape& operand_shape = gather.operand(0)->shape();
  const Shape& indices_shape = gather.operand(1)->shape();
  const std::vector<int64_t>& slice_sizes = gather.gather_slice_sizes();
  const int64_t operand_rank = static_cast<int64_t>(operand_shape.dimensions().size());
  const int64_t indices_rank = static_cast<int64_t>(indices_shape.dimensions().size());
  const int64_t output_rank = static_cast<int64_t>(gather.shape().dimensions().size());
  if (static_cast<int64_t>(slice_sizes.size()) != operand_rank) {
    return absl::InvalidArgumentError("CPU gather: slice_sizes of " + gather.name() +
                                      " do not match the operand rank");
  }
  llvm::IRBuilder<>& b = context.builder();
  HMO_ASSIGN_OR_RETURN(IrArray operand, context.OperandArray(0));
  HMO_ASSIGN_OR_RETURN(IrArray indices, context.OperandArray(1));
  HMO_ASSIGN_OR_RETURN(IrArray output, context.OutputArray());
  const PrimitiveType index_type = indices.element_type();
  ElementalIrEmitter elemental(b, context.module());

  std::vector<int64_t> batch_dims;  // output dims forming G
  for (int64_t d = 0; d < output_rank; ++d) {
    if (!Contains(dnums.offset_dims, d)) batch_dims.push_back(d);
  }
  std::vector<int64_t> window_operand_dims;  // operand dims the offset dims index
  for (int64_t d = 0; d < operand_rank; ++d) {
    if (!Contains(dnums.collapsed_slice_dims, d) && !Contains(dnums.operand_batching_dims, d)) {
      window_operand_dims.push_back(d);
    }
  }
  const bool implicit_index_vector = dnums.index_vector_dim == indices_rank;
  const int64_t index_vector_size =
      implicit_index_vector ? 1 : indices_shape.dimensions()[dnums.index_vector_dim];
  // Position in G of start-indices dimension d (d != index_vector_dim).
  auto batch_position = [&](int64_t d) { return d < dnums.index_vector_dim ? d : d - 1; };

  return context.EmitParallelLoop(
      "gather", output.shape(), [&](const IrArray::Index& out_index) -> absl::Status {
        IrArray::Index g;
        for (int64_t d : batch_dims) g.push_back(out_index[d]);
        std::vector<llvm::Value*> start(operand_rank, I64(b, 0));
        for (int64_t k = 0;
             k < index_vector_size && k < static_cast<int64_t>(dnums.start_index_map.size()); ++k) {
          IrArray::Index idx = g;
          if (!implicit_index_vector) idx.insert(idx.begin() + dnums.index_vector_dim, I64(b, k));
          HMO_ASSIGN_OR_RETURN(llvm::Value * raw,
                               elemental.EmitConvert(indices.EmitReadElement(idx, b), index_type,
                                                     PrimitiveType::S64));
          const int64_t d = dnums.start_index_map[k];
          const int64_t limit = operand_shape.dimensions()[d] - slice_sizes[d];
          start[d] = EmitClampedSliceStart(b, raw, PrimitiveType::S64, limit);
        }
        for (size_t i = 0; i < dnums.operand_batching_dims.size(); ++i) {
          start[dnums.operand_batching_dims[i]] =
              g[batch_position(dnums.start_indices_batching_dims[i])];
        }
        IrArray::Index operand_index = start;
        for (size_t i = 0; i < dnums.offset_dims.size(); ++i) {
          const int64_t d = window_operand_dims[i];
          operand_index[d] = b.CreateAdd(start[d], out_index[dnums.offset_dims[i]]);
        }
        output.EmitWriteElement(out_index, operand.EmitReadElement(operand_index, b), b);
        return absl::OkStatus();
      });
}

}  // namespace hmo::codegen
