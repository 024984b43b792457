// Kernel body of reduce (op_emitters.h).
//
// reduce(inputs[0..N), inits[0..N)), dimensions=D, to_apply=f: for every
// output index, N accumulators start at the init values and take, for every
// index of the reduced dimensions (in increasing order, the most minor
// reduced dimension innermost), acc = f(acc..., input_values...). The output
// is one array (N == 1) or a tuple of N arrays, all with the kept dimensions
// of the inputs in increasing order. A reduction fusion (fusion_emitter.h)
// runs the same loops with its fused expressions as the inputs, one set of
// accumulators per reduce of a multi-output one.

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
absl::Status EmitColumnReduction(KernelEmitContext& context,
                                 const std::vector<ReduceLoopOperands>& reduces) {
  llvm::IRBuilder<>& b = context.builder();
  HMO_RETURN_IF_ERROR(context.EmitLoopNest("reduce.init", reduces[0].outputs[0].shape(),
                                           [&](const IrArray::Index& index) -> absl::Status {
                                             for (const ReduceLoopOperands& r : reduces) {
                                               for (size_t i = 0; i < r.outputs.size(); ++i) {
                                                 HMO_ASSIGN_OR_RETURN(llvm::Value * init,
                                                                      r.inits[i](IrArray::Index{}));
                                                 r.outputs[i].EmitWriteElement(index, init, b);
                                               }
                                             }
                                             return absl::OkStatus();
                                           }));
  const HloInstruction& first = *reduces[0].reduce;
  const Shape& input_shape = first.operand(0)->shape();
  const std::vector<int64_t>& reduced = first.dimensions();
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < input_shape.rank(); ++d) {
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) kept.push_back(d);
  }
  return context.EmitLoopNest(
      "reduce.column", input_shape, [&](const IrArray::Index& index) -> absl::Status {
        IrArray::Index out_index;
        for (int64_t d : kept) out_index.push_back(index[d]);
        for (const ReduceLoopOperands& r : reduces) {
          const size_t n = r.inputs.size();
          std::vector<llvm::Value*> args;
          for (size_t i = 0; i < n; ++i) args.push_back(r.outputs[i].EmitReadElement(out_index, b));
          for (size_t i = 0; i < n; ++i) {
            HMO_ASSIGN_OR_RETURN(llvm::Value * x, r.inputs[i](index));
            args.push_back(x);
          }
          HMO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> results,
                               context.EmitScalarComputation(*r.reduce->to_apply(), args));
          if (results.size() != n) {
            return absl::InvalidArgumentError("CPU reduce: to_apply of " + r.reduce->name() +
                                              " does not return one value per input");
          }
          for (size_t i = 0; i < n; ++i) r.outputs[i].EmitWriteElement(out_index, results[i], b);
        }
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

absl::Status EmitReduceLoops(KernelEmitContext& context,
                             const std::vector<ReduceLoopOperands>& reduces) {
  if (reduces.empty()) return absl::InvalidArgumentError("CPU reduce: no reduce to emit");
  const HloInstruction& first = *reduces[0].reduce;
  for (const ReduceLoopOperands& r : reduces) {
    if (r.reduce->operand(0)->shape().dimensions() != first.operand(0)->shape().dimensions() ||
        r.reduce->dimensions() != first.dimensions() || r.inputs.empty() ||
        r.inputs.size() != r.inits.size() || r.inputs.size() != r.outputs.size()) {
      return absl::InvalidArgumentError("CPU reduce: " + r.reduce->name() + " and " + first.name() +
                                        " do not share one set of reduction loops");
    }
  }
  llvm::IRBuilder<>& b = context.builder();
  // The outputs hold partial results: they must share no byte with the
  // input, and one thread must run the whole loop (a GPU's threads each
  // run the kernel: they would all update the outputs at once).
  bool column = !context.partitioned() && !context.parallel_iterations_run_concurrently() &&
                !OutputsOverlapOperands(context.assignment(), context.instruction());
  for (const ReduceLoopOperands& r : reduces) column = column && IsColumnReduction(*r.reduce);
  if (column) return EmitColumnReduction(context, reduces);
  const Shape& input_shape = first.operand(0)->shape();
  const int64_t rank = static_cast<int64_t>(input_shape.dimensions().size());
  const std::vector<int64_t>& reduced = first.dimensions();
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) kept.push_back(d);
  }
  std::vector<int64_t> reduced_sorted = reduced;
  std::sort(reduced_sorted.begin(), reduced_sorted.end());
  std::vector<int64_t> reduced_sizes;
  for (int64_t d : reduced_sorted) reduced_sizes.push_back(input_shape.dimensions()[d]);

  // One set of accumulators per reduce, advancing together: each reduce
  // combines its inputs in the same order as alone.
  std::vector<std::vector<llvm::AllocaInst*>> accumulators(reduces.size());
  for (size_t k = 0; k < reduces.size(); ++k) {
    const HloInstruction& reduce = *reduces[k].reduce;
    const int64_t n = static_cast<int64_t>(reduces[k].inputs.size());
    for (int64_t i = 0; i < n; ++i) {
      HMO_ASSIGN_OR_RETURN(
          llvm::Type * type,
          ComputeType(reduce.operand(n + i)->shape().element_type(), context.llvm_context()));
      accumulators[k].push_back(context.EmitEntryAlloca(
          type, "reduce.acc" + std::to_string(k) + "." + std::to_string(i)));
    }
  }

  return context.EmitParallelLoop(
      "reduce", reduces[0].outputs[0].shape(),
      [&](const IrArray::Index& out_index) -> absl::Status {
        for (size_t k = 0; k < reduces.size(); ++k) {
          for (size_t i = 0; i < accumulators[k].size(); ++i) {
            HMO_ASSIGN_OR_RETURN(llvm::Value * init, reduces[k].inits[i](IrArray::Index{}));
            b.CreateStore(init, accumulators[k][i]);
          }
        }
        IrArray::Index input_index(rank);
        for (size_t k = 0; k < kept.size(); ++k) input_index[kept[k]] = out_index[k];
        std::vector<llvm::Value*> ivs;
        HMO_RETURN_IF_ERROR(EmitIndexLoops(
            context, reduced_sizes, ivs, [&](const std::vector<llvm::Value*>& r) -> absl::Status {
              for (size_t k = 0; k < r.size(); ++k) input_index[reduced_sorted[k]] = r[k];
              for (size_t k = 0; k < reduces.size(); ++k) {
                HMO_RETURN_IF_ERROR(EmitAccumulateStep(context, *reduces[k].reduce, accumulators[k],
                                                       reduces[k].inputs, input_index));
              }
              return absl::OkStatus();
            }));
        for (size_t k = 0; k < reduces.size(); ++k) {
          for (size_t i = 0; i < accumulators[k].size(); ++i) {
            llvm::AllocaInst* accumulator = accumulators[k][i];
            reduces[k].outputs[i].EmitWriteElement(
                out_index, b.CreateLoad(accumulator->getAllocatedType(), accumulator), b);
          }
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
  ReduceLoopOperands operands{&reduce, {}, {}, {}};
  for (int64_t i = 0; i < n; ++i) {
    HMO_ASSIGN_OR_RETURN(IrArray input, context.OperandArray(i));
    HMO_ASSIGN_OR_RETURN(IrArray init, context.OperandArray(n + i));
    HMO_ASSIGN_OR_RETURN(IrArray output, reduce.shape().IsTuple() ? context.OutputArray({i})
                                                                  : context.OutputArray());
    operands.inputs.push_back(FusedGenerators::ArrayReader(b, std::move(input)));
    operands.inits.push_back(FusedGenerators::ArrayReader(b, std::move(init)));
    operands.outputs.push_back(std::move(output));
  }
  return EmitReduceLoops(context, {operands});
}

}  // namespace hmo::codegen
