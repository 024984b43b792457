// Kernel body of reduce (op_emitters.h).
//
// reduce(inputs[0..N), inits[0..N)), dimensions=D, to_apply=f: for every
// output index, N accumulators start at the init values and take, for every
// index of the reduced dimensions (in increasing order, the most minor
// reduced dimension innermost), acc = f(acc..., input_values...). The output
// is one array (N == 1) or a tuple of N arrays, all with the kept dimensions
// of the inputs in increasing order. A reduction fusion (fusion_emitter.h)
// runs the same loops with its fused expressions as the inputs.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hmo/codegen/alias_scopes.h"
#include "hmo/codegen/element_types.h"
#include "hmo/codegen/fused_generators.h"
#include "hmo/codegen/op_emitters.h"
#include "hmo/codegen/window_loops.h"
#include "hmo/base/status_macros.h"

namespace hmo::codegen {
namespace {

// Calls body(ivs) for every index of `sizes` (one loop per entry, the last
// innermost).
absl::Status EmitIndexLoops(
    KernelEmitContext& context, const std::vector<int64_t>& sizes, std::vector<llvm::Value*>& ivs,
    const std::function<absl::Status(const std::vector<llvm::Value*>&)>& body) {
  if (ivs.size() == sizes.size()) return body(ivs);
  llvm::IRBuilder<>& b = context.builder();
  return context.EmitForLoop("reduce.dim", I64(b, 0), I64(b, sizes[ivs.size()]), 1,
                             [&](llvm::Value* iv) {
                               ivs.push_back(iv);
                               absl::Status st = EmitIndexLoops(context, sizes, ivs, body);
                               ivs.pop_back();
                               return st;
                             });
}

}  // namespace

namespace {

// Whether every kept dimension of `reduce`'s input is more minor in memory
// than every reduced one (and there are both).
bool KeptDimensionsAreMinor(const HloInstruction& reduce) {
  const Shape& input = reduce.operand(0)->shape();
  const std::vector<int64_t>& reduced = reduce.dimensions();
  const std::vector<int64_t> minor_to_major = ShapeUtil::LayoutOrDefault(input).minor_to_major();
  const size_t kept = minor_to_major.size() - reduced.size();
  if (reduced.empty() || kept == 0) return false;
  for (size_t i = 0; i < minor_to_major.size(); ++i) {
    const bool is_reduced =
        std::find(reduced.begin(), reduced.end(), minor_to_major[i]) != reduced.end();
    if (is_reduced != (i >= kept)) return false;
  }
  return true;
}

// Types whose values the output array holds exactly as the accumulator does.
bool AccumulatesInItsOwnType(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F32:
    case PrimitiveType::F64:
    case PrimitiveType::S32:
    case PrimitiveType::S64:
    case PrimitiveType::U32:
    case PrimitiveType::U64:
      return true;
    default:
      return false;
  }
}

// A column reduction: the outputs start as the inits and take the input in
// memory order, the kept (minor) dimensions innermost, so the inner loop runs
// over consecutive elements and independent outputs (it vectorizes); each
// output still takes its inputs in increasing reduced index, as in the
// general form.
absl::Status EmitColumnReduction(KernelEmitContext& context, const HloInstruction& reduce,
                                 const std::vector<ElementGenerator>& inputs,
                                 const std::vector<ElementGenerator>& inits,
                                 const std::vector<IrArray>& outputs) {
  const int64_t n = static_cast<int64_t>(inputs.size());
  llvm::IRBuilder<>& b = context.builder();
  HMO_RETURN_IF_ERROR(context.EmitLoopNest(
      "reduce.init", outputs[0].shape(), [&](const IrArray::Index& index) -> absl::Status {
        for (int64_t i = 0; i < n; ++i) {
          HMO_ASSIGN_OR_RETURN(llvm::Value * init, inits[i](IrArray::Index{}));
          outputs[i].EmitWriteElement(index, init, b);
        }
        return absl::OkStatus();
      }));
  const Shape& input_shape = reduce.operand(0)->shape();
  const std::vector<int64_t>& reduced = reduce.dimensions();
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < input_shape.rank(); ++d) {
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) kept.push_back(d);
  }
  return context.EmitLoopNest(
      "reduce.column", input_shape, [&](const IrArray::Index& index) -> absl::Status {
        IrArray::Index out_index;
        for (int64_t d : kept) out_index.push_back(index[d]);
        std::vector<llvm::Value*> args;
        for (int64_t i = 0; i < n; ++i) args.push_back(outputs[i].EmitReadElement(out_index, b));
        for (int64_t i = 0; i < n; ++i) {
          HMO_ASSIGN_OR_RETURN(llvm::Value * x, inputs[i](index));
          args.push_back(x);
        }
        HMO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> results,
                             context.EmitScalarComputation(*reduce.to_apply(), args));
        if (static_cast<int64_t>(results.size()) != n) {
          return absl::InvalidArgumentError("CPU reduce: to_apply of " + reduce.name() +
                                            " does not return one value per input");
        }
        for (int64_t i = 0; i < n; ++i) outputs[i].EmitWriteElement(out_index, results[i], b);
        return absl::OkStatus();
      });
}

}  // namespace

bool IsColumnReduction(const HloInstruction& reduce) {
  if (reduce.opcode() != HloOpcode::kReduce || !KeptDimensionsAreMinor(reduce)) return false;
  const int64_t n = reduce.operand_count() / 2;
  for (int64_t i = 0; i < n; ++i) {
    const PrimitiveType type = reduce.operand(n + i)->shape().element_type();
    const Shape& output =
        reduce.shape().IsTuple() ? reduce.shape().tuple_shapes()[i] : reduce.shape();
    if (!AccumulatesInItsOwnType(type) || output.element_type() != type) return false;
  }
  return true;
}

absl::Status EmitReduceLoops(KernelEmitContext& context, const HloInstruction& reduce,
                             const std::vector<ElementGenerator>& inputs,
                             const std::vector<ElementGenerator>& inits,
                             const std::vector<IrArray>& outputs) {
  const int64_t n = static_cast<int64_t>(inputs.size());
  llvm::IRBuilder<>& b = context.builder();
  // The outputs hold partial results: they must share no byte with the input.
  if (!context.partitioned() && IsColumnReduction(reduce) &&
      !OutputsOverlapOperands(context.assignment(), context.instruction())) {
    return EmitColumnReduction(context, reduce, inputs, inits, outputs);
  }
  const Shape& input_shape = reduce.operand(0)->shape();
  const int64_t rank = static_cast<int64_t>(input_shape.dimensions().size());
  const std::vector<int64_t>& reduced = reduce.dimensions();
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) kept.push_back(d);
  }
  std::vector<int64_t> reduced_sorted = reduced;
  std::sort(reduced_sorted.begin(), reduced_sorted.end());
  std::vector<int64_t> reduced_sizes;
  for (int64_t d : reduced_sorted) reduced_sizes.push_back(input_shape.dimensions()[d]);

  std::vector<llvm::AllocaInst*> accumulators;
  for (int64_t i = 0; i < n; ++i) {
    HMO_ASSIGN_OR_RETURN(
        llvm::Type * type,
        ComputeType(reduce.operand(n + i)->shape().element_type(), context.llvm_context()));
    accumulators.push_back(context.EmitEntryAlloca(type, "reduce.acc" + std::to_string(i)));
  }

  return context.EmitParallelLoop(
      "reduce", outputs[0].shape(), [&](const IrArray::Index& out_index) -> absl::Status {
        for (int64_t i = 0; i < n; ++i) {
          HMO_ASSIGN_OR_RETURN(llvm::Value * init, inits[i](IrArray::Index{}));
          b.CreateStore(init, accumulators[i]);
        }
        IrArray::Index input_index(rank);
        for (size_t k = 0; k < kept.size(); ++k) input_index[kept[k]] = out_index[k];
        std::vector<llvm::Value*> ivs;
        HMO_RETURN_IF_ERROR(EmitIndexLoops(
            context, reduced_sizes, ivs, [&](const std::vector<llvm::Value*>& r) -> absl::Status {
              for (size_t k = 0; k < r.size(); ++k) input_index[reduced_sorted[k]] = r[k];
              return EmitAccumulateStep(context, reduce, accumulators, inputs, input_index);
            }));
        for (int64_t i = 0; i < n; ++i) {
          outputs[i].EmitWriteElement(
              out_index, b.CreateLoad(accumulators[i]->getAllocatedType(), accumulators[i]), b);
        }
        return absl::OkStatus();
      });
}

absl::Status EmitReduce(KernelEmitContext& context) {
  const HloInstruction& reduce = context.instruction();
  const int64_t n = reduce.operand_count() / 2;
  if (n < 1 || reduce.operand_count() != 2 * n || reduce.to_apply() == nullptr) {
    return absl::InvalidArgumentError("CPU reduce: " + reduce.name() +
                                      " needs N inputs, N inits and to_apply");
  }
  llvm::IRBuilder<>& b = context.builder();
  std::vector<ElementGenerator> inputs, inits;
  std::vector<IrArray> outputs;
  for (int64_t i = 0; i < n; ++i) {
    HMO_ASSIGN_OR_RETURN(IrArray input, context.OperandArray(i));
    HMO_ASSIGN_OR_RETURN(IrArray init, context.OperandArray(n + i));
    HMO_ASSIGN_OR_RETURN(IrArray output, reduce.shape().IsTuple() ? context.OutputArray({i})
                                                                  : context.OutputArray());
    inputs.push_back(FusedGenerators::ArrayReader(b, std::move(input)));
    inits.push_back(FusedGenerators::ArrayReader(b, std::move(init)));
    outputs.push_back(std::move(output));
  }
  return EmitReduceLoops(context, reduce, inputs, inits, outputs);
}

}  // namespace hmo::codegen
