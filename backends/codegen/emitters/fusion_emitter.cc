#include "hmo/codegen/fusion_emitter.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "hmo/codegen/alias_scopes.h"
#include "hmo/codegen/convolution_plan.h"
#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/element_types.h"
#include "hmo/codegen/fused_generators.h"
#include "hmo/codegen/gemm_plan.h"
#include "hmo/codegen/op_emitters.h"
#include "hmo/codegen/dynamic_slicing.h"
#include "hmo/codegen/kernel_emitter.h"
#include "hmo/base/status_macros.h"

namespace hmo::codegen {
namespace {

absl::Status FusionError(const HloInstruction& fusion, std::string_view why) {
  return absl::UnimplementedError("codegen: fusion " + fusion.name() + ": " + std::string(why));
}

// Every fused instruction works element by element on arrays of the
// output's dimensions (scalars only through broadcasts and constants), and
// every parameter array is laid out like the outputs.
bool CanUseFlatLoop(const HloComputation& fused, const std::vector<IrArray>& parameters,
                    const std::vector<IrArray>& outputs) {
  const IrArray& reference = outputs[0];
  if (reference.shape().rank() <= 1) return false;  // already flat
  for (const IrArray& output : outputs) {
    if (output.shape().dimensions() != reference.shape().dimensions() ||
        output.minor_to_major() != reference.minor_to_major()) {
      return false;
    }
  }
  for (const IrArray& parameter : parameters) {
    if (parameter.shape().rank() == 0) continue;
    if (parameter.shape().dimensions() != reference.shape().dimensions() ||
        parameter.minor_to_major() != reference.minor_to_major()) {
      return false;
    }
  }
  for (const HloInstruction* instruction : fused.instructions()) {
    switch (instruction->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kTuple:
        continue;
      case HloOpcode::kConstant:
        if (instruction->shape().rank() == 0) continue;
        return false;
      case HloOpcode::kBroadcast:
        if (instruction->operand(0)->shape().rank() == 0) continue;
        return false;
      default:
        if (!instruction->IsElementwise() ||
            !ElementalIrEmitter::IsElementalOpcode(instruction->opcode()) ||
            instruction->shape().dimensions() != reference.shape().dimensions()) {
          return false;
        }
    }
  }
  return true;
}

// Above this many bytes an in-place update that must be computed before it
// is written (PlannedUpdate::staged) is refused: its values live on the
// kernel's stack.
constexpr int64_t kMaxStagedUpdateBytes = 64 * 1024;

// An in-place dynamic-update-slice of a fusion kernel: `target` is the
// updated buffer viewed with the dynamic-update-slice's shape; `starts` its
// clamped start indices.
struct PlannedUpdate {
  const HloInstruction* dus = nullptr;
  IrArray target;
  std::vector<llvm::Value*> starts;
  // Whether the update's values are computed into the kernel's stack (in
  // the target's layout order, `staged_values`) before any output is
  // written: computing them in place could read an element this kernel
  // already wrote.
  bool staged = false;
  IrArray staged_values;
};

// The update region's loop shape: the update's dimensions in the target's
// layout order, for contiguous writes.
Shape UpdateLoopShape(const PlannedUpdate& update) {
  const Shape& update_shape = update.dus->operand(1)->shape();
  return Shape(update_shape.element_type(), update_shape.dimensions(),
               Layout(update.target.minor_to_major()));
}

absl::Status EmitUpdateStarts(KernelEmitContext& context, FusedGenerators& generators,
                              PlannedUpdate& update) {
  const HloInstruction& dus = *update.dus;
  const Shape& update_shape = dus.operand(1)->shape();
  for (int64_t d = 0; d < update_shape.rank(); ++d) {
    HMO_ASSIGN_OR_RETURN(ElementGenerator start, generators.Get(*dus.operand(2 + d)));
    HMO_ASSIGN_OR_RETURN(llvm::Value * raw, start(IrArray::Index{}));
    update.starts.push_back(
        EmitClampedSliceStart(context.builder(), raw, dus.operand(2 + d)->shape().element_type(),
                              dus.shape().dimensions(static_cast<int>(d)) -
                                  update_shape.dimensions(static_cast<int>(d))));
  }
  return absl::OkStatus();
}

// Computes the update's values into a stack array (a sequential kernel's).
absl::Status EmitStagedUpdate(KernelEmitContext& context, FusedGenerators& generators,
                              PlannedUpdate& update) {
  const Shape loop_shape = UpdateLoopShape(update);
  llvm::IRBuilder<>& b = context.builder();
  HMO_ASSIGN_OR_RETURN(llvm::Type * element,
                       StorageType(loop_shape.element_type(), context.llvm_context()));
  llvm::AllocaInst* storage = context.EmitEntryAlloca(
      llvm::ArrayType::get(element, static_cast<uint64_t>(ShapeUtil::ElementsIn(loop_shape))),
      "staged_update");
  IrArray staged(storage, loop_shape);
  HMO_ASSIGN_OR_RETURN(ElementGenerator values, generators.Get(*update.dus->operand(1)));
  HMO_RETURN_IF_ERROR(context.EmitLoopNest(
      "dus.stage", loop_shape, [&](const IrArray::Index& index) -> absl::Status {
        HMO_ASSIGN_OR_RETURN(llvm::Value * value, values(index));
        staged.EmitWriteElement(index, value, b);
        return absl::OkStatus();
      }));
  update.staged_values = std::move(staged);
  return absl::OkStatus();
}

// Writes the update into its place, visiting only the update region: the
// kernel's loop over it (EmitOutputLoopNest: on a GPU, its grid-stride loop).
absl::Status EmitInPlaceUpdate(KernelEmitContext& context, FusedGenerators& generators,
                               const PlannedUpdate& update) {
  llvm::IRBuilder<>& b = context.builder();
  ElementGenerator values;
  if (update.staged) {
    values = FusedGenerators::ArrayReader(b, update.staged_values);
  } else {
    HMO_ASSIGN_OR_RETURN(values, generators.Get(*update.dus->operand(1)));
  }
  return context.EmitOutputLoopNest("dus", UpdateLoopShape(update),
                                    [&](const IrArray::Index& index) -> absl::Status {
                                      HMO_ASSIGN_OR_RETURN(llvm::Value * value, values(index));
                                      IrArray::Index position(index.size());
                                      for (size_t d = 0; d < index.size(); ++d)
                                        position[d] = b.CreateAdd(update.starts[d], index[d]);
                                      update.target.EmitWriteElement(position, value, b);
                                      return absl::OkStatus();
                                    });
}

// Whether `instruction` (not a reduction fusion's root) can be computed
// element by element inside a fusion kernel: an elemental opcode, and for a
// reduce or reduce-window, a small enough input (kMaxInnerReductionBytes).
bool IsFusibleElemental(const HloInstruction& instruction) {
  if (!instruction.shape().IsArray() ||
      !ElementalIrEmitter::IsElementalOpcode(instruction.opcode())) {
    return false;
  }
  if (instruction.opcode() == HloOpcode::kReduce ||
      instruction.opcode() == HloOpcode::kReduceWindow) {
    return ShapeUtil::ByteSizeOf(instruction.operand(0)->shape()) < kMaxInnerReductionBytes;
  }
  return true;
}

}  // namespace

bool IsLoopFusionEmittable(const HloInstruction& fusion) {
  const HloComputation* fused = fusion.fused_instructions_computation();
  if (fused == nullptr) return false;
  for (const HloInstruction* operand : fusion.operands()) {
    if (!operand->shape().IsArray()) return false;
  }
  const HloInstruction* root = fused->root_instruction();
  for (const HloInstruction* instruction : fused->instructions()) {
    if (instruction->opcode() == HloOpcode::kParameter) continue;
    if (instruction == root && instruction->opcode() == HloOpcode::kTuple) continue;
    if (!IsFusibleElemental(*instruction)) return false;
  }
  if (root->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* output : root->operands()) {
      if (!output->shape().IsArray() ||
          output->shape().dimensions() != root->operand(0)->shape().dimensions()) {
        return false;
      }
    }
  }
  return true;
}

std::vector<const HloInstruction*> FusedRootReduces(const HloInstruction& fusion) {
  const HloComputation* fused = fusion.fused_instructions_computation();
  if (fused == nullptr) return {};
  const HloInstruction* root = fused->root_instruction();
  auto is_reduce = [](const HloInstruction* instruction) {
    const int64_t n = instruction->operand_count() / 2;
    return instruction->opcode() == HloOpcode::kReduce && instruction->to_apply() != nullptr &&
           n >= 1 && instruction->operand_count() == 2 * n;
  };
  if (root->opcode() != HloOpcode::kTuple) {
    if (!is_reduce(root)) return {};
    return {root};
  }
  // Sibling reduces: array-shaped, each once, read by the tuple only, over
  // inputs of one set of dimensions reduced along the same ones.
  std::vector<const HloInstruction*> reduces;
  for (const HloInstruction* output : root->operands()) {
    if (!is_reduce(output) || !output->shape().IsArray() || output->user_count() != 1 ||
        std::find(reduces.begin(), reduces.end(), output) != reduces.end()) {
      return {};
    }
    if (!reduces.empty() &&
        (output->operand(0)->shape().dimensions() != reduces[0]->operand(0)->shape().dimensions() ||
         output->dimensions() != reduces[0]->dimensions())) {
      return {};
    }
    reduces.push_back(output);
  }
  return reduces;
}

bool IsReductionFusionEmittable(const HloInstruction& fusion) {
  const std::vector<const HloInstruction*> reduces = FusedRootReduces(fusion);
  if (reduces.empty()) return false;
  for (const HloInstruction* operand : fusion.operands()) {
    if (!operand->shape().IsArray()) return false;
  }
  const HloInstruction* root = fusion.fused_instructions_computation()->root_instruction();
  for (const HloInstruction* instruction :
       fusion.fused_instructions_computation()->instructions()) {
    if (instruction == root || instruction->opcode() == HloOpcode::kParameter ||
        std::find(reduces.begin(), reduces.end(), instruction) != reduces.end()) {
      continue;
    }
    if (!IsFusibleElemental(*instruction)) return false;
  }
  return true;
}

bool ReachesRootElementwise(const HloInstruction& value) {
  const HloInstruction* root = value.parent()->root_instruction();
  std::vector<const HloInstruction*> pending = {&value};
  absl::flat_hash_set<const HloInstruction*> seen = {&value};
  while (!pending.empty()) {
    const HloInstruction* current = pending.back();
    pending.pop_back();
    if (current == root) continue;
    if (current->users().empty()) return false;  // root unreachable: not an epilogue
    for (const HloInstruction* user : current->users()) {
      if (!user->shape().IsArray() || user->shape().dimensions() != value.shape().dimensions() ||
          !ElementalIrEmitter::IsElementalOpcode(user->opcode())) {
        return false;
      }
      for (int64_t i = 0; i < user->operand_count(); ++i) {
        if (user->operand(i) == current && !user->IsElementwiseOnOperand(i)) return false;
      }
      if (seen.insert(user).second) pending.push_back(user);
    }
  }
  return true;
}

namespace {

// Whether `product` (a fused dot or convolution) is one the runtime
// computes with an epilogue: a GEMM, or the 2-D convolution.
bool IsRuntimeProduct(const HloInstruction& product) {
  switch (product.opcode()) {
    case HloOpcode::kDot:
      return RuntimeGemmElementTypes(product).has_value() && GemmPlanFor(product).has_value();
    case HloOpcode::kConvolution:
      return product.has_convolution_dimension_numbers() && product.has_window() &&
             IsRuntimeConvolution2D(product);
    default:
      return false;
  }
}

// The dot or convolution of an output fusion EmitFusionKernel emits whole,
// or null.
const HloInstruction* OutputFusionProduct(const HloInstruction& fusion) {
  const HloComputation* fused = fusion.fused_instructions_computation();
  if (fused == nullptr) return nullptr;
  for (const HloInstruction* operand : fusion.operands()) {
    if (!operand->shape().IsArray()) return nullptr;
  }
  const HloInstruction* root = fused->root_instruction();
  if (!root->shape().IsArray()) return nullptr;
  const HloInstruction* product = nullptr;
  for (const HloInstruction* instruction : fused->instructions()) {
    if (instruction->opcode() == HloOpcode::kParameter) continue;
    if (instruction->opcode() == HloOpcode::kDot ||
        instruction->opcode() == HloOpcode::kConvolution) {
      if (product != nullptr) return nullptr;
      product = instruction;
      continue;
    }
    if (!IsFusibleElemental(*instruction)) return nullptr;
  }
  if (product == nullptr || product->operand(0)->opcode() != HloOpcode::kParameter ||
      product->operand(1)->opcode() != HloOpcode::kParameter || !IsRuntimeProduct(*product) ||
      root->shape().dimensions() != product->shape().dimensions() ||
      !ReachesRootElementwise(*product)) {
    return nullptr;
  }
  return product;
}

}  // namespace

bool IsOutputFusionEmittable(const HloInstruction& fusion) {
  return OutputFusionProduct(fusion) != nullptr;
}

bool IsOutputFusionProduct(const HloInstruction& product) {
  return (product.opcode() == HloOpcode::kDot || product.opcode() == HloOpcode::kConvolution) &&
         IsRuntimeProduct(product);
}

bool IsFusionEmittable(const HloInstruction& fusion) {
  return IsLoopFusionEmittable(fusion) || IsReductionFusionEmittable(fusion) ||
         IsOutputFusionEmittable(fusion);
}

namespace {

absl::Status EmitReductionFusion(KernelEmitContext& context, std::vector<IrArray> parameters) {
  const HloInstruction& fusion = context.instruction();
  const std::vector<const HloInstruction*> reduces = FusedRootReduces(fusion);
  const bool multi_output = reduces.size() > 1;
  FusedGenerators generators(context.builder(), context.module(), std::move(parameters));
  std::vector<ReduceLoopOperands> operands;
  for (size_t k = 0; k < reduces.size(); ++k) {
    const HloInstruction& reduce = *reduces[k];
    const int64_t n = reduce.operand_count() / 2;
    ReduceLoopOperands reduce_operands{&reduce, {}, {}, {}};
    for (int64_t i = 0; i < n; ++i) {
      HMO_ASSIGN_OR_RETURN(ElementGenerator input, generators.Get(*reduce.operand(i)));
      HMO_ASSIGN_OR_RETURN(ElementGenerator init, generators.Get(*reduce.operand(n + i)));
      const ShapeIndex index = multi_output               ? ShapeIndex{static_cast<int64_t>(k)}
                               : reduce.shape().IsTuple() ? ShapeIndex{i}
                                                          : ShapeIndex{};
      HMO_ASSIGN_OR_RETURN(IrArray output, context.OutputArray(index));
      reduce_operands.inputs.push_back(std::move(input));
      reduce_operands.inits.push_back(std::move(init));
      reduce_operands.outputs.push_back(std::move(output));
    }
    operands.push_back(std::move(reduce_operands));
  }
  return EmitReduceLoops(context, operands);
}

// Splits `linear` (a row-major position over `sizes`) into one index per
// size, appended to `index`.
void AppendDelinearized(llvm::IRBuilderBase& b, llvm::Value* linear,
                        const std::vector<int64_t>& sizes, IrArray::Index& index) {
  std::vector<llvm::Value*> reversed;
  for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
    if (it + 1 == sizes.rend()) {
      reversed.push_back(linear);
    } else {
      reversed.push_back(b.CreateURem(linear, I64(b, *it)));
      linear = b.CreateUDiv(linear, I64(b, *it));
    }
  }
  index.insert(index.end(), reversed.rbegin(), reversed.rend());
}

// How the runtime hands an output fusion's product to its epilogue: as
// GEMM tiles whose batch, row and column indices each stand for these
// dimensions of the product (row-major within each group).
struct ProductTiling {
  std::vector<int64_t> batch_sizes;
  std::vector<int64_t> row_sizes;
  std::vector<int64_t> column_sizes;
};

ProductTiling TilingOf(const HloInstruction& product) {
  const std::vector<int64_t>& dims = product.shape().dimensions();
  if (product.opcode() == HloOpcode::kConvolution) {
    // Rows are the output pixels (batch, row, column), columns the features.
    return {{}, {dims.begin(), dims.end() - 1}, {dims.back()}};
  }
  // A dot's dimensions: batch, then the lhs's free ones (the GEMM's rows),
  // then the rhs's (its columns).
  const DotDimensionNumbers& dnums = product.dot_dimension_numbers();
  const int64_t batch_rank = static_cast<int64_t>(dnums.lhs_batch_dimensions.size());
  const int64_t row_rank = product.operand(0)->shape().rank() - batch_rank -
                           static_cast<int64_t>(dnums.lhs_contracting_dimensions.size());
  return {{dims.begin(), dims.begin() + batch_rank},
          {dims.begin() + batch_rank, dims.begin() + batch_rank + row_rank},
          {dims.begin() + batch_rank + row_rank, dims.end()}};
}

// The epilogue of an output fusion (HmoCpuGemmEpilogue): the fused root over
// one tile of the product, the product's value read from the tile.
// `in_place`: the tiles are regions of the output itself, overwritten
// element by element after their product is read.
absl::StatusOr<llvm::Function*> EmitEpilogue(KernelEmitContext& kernel,
                                             const HloInstruction& product, bool in_place) {
  const HloInstruction& fusion = kernel.instruction();
  const HloInstruction& root = *fusion.fused_instructions_computation()->root_instruction();
  llvm::LLVMContext& ctx = kernel.llvm_context();
  llvm::Type* i8_ptr = llvm::Type::getInt8PtrTy(ctx);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  llvm::FunctionType* type = llvm::FunctionType::get(
      llvm::Type::getVoidTy(ctx), {i8_ptr->getPointerTo(), i8_ptr, i64, i64, i64, i64, i64, i64},
      false);
  llvm::Function* function =
      llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                             kernel.kernel().getName() + ".epilogue", kernel.module());
  function->addFnAttr(llvm::Attribute::NoUnwind);
  // A scratch tile is the runtime's, no buffer of the table.
  if (!in_place) function->addParamAttr(1, llvm::Attribute::NoAlias);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", function));
  KernelEmitContext context(b, kernel.module(), *function, function->getArg(0), kernel.assignment(),
                            fusion);
  std::vector<IrArray> parameters;
  for (int64_t i = 0; i < fusion.operand_count(); ++i) {
    HMO_ASSIGN_OR_RETURN(IrArray array, context.OperandArray(i));
    parameters.push_back(std::move(array));
  }
  HMO_ASSIGN_OR_RETURN(IrArray output, context.OutputArray());
  {
    std::vector<IrArray*> inputs;
    std::vector<std::set<BufferAssignment::Slice>> input_slices;
    for (int64_t i = 0; i < fusion.operand_count(); ++i) {
      inputs.push_back(&parameters[i]);
      input_slices.push_back(ReadSlices(context.assignment(), *fusion.operand(i)));
    }
    AnnotateDisjointAccesses(ctx, {&output}, {context.assignment().GetAllSlices(&fusion, {})},
                             inputs, input_slices);
  }
  const PrimitiveType product_type = product.shape().element_type();
  HMO_ASSIGN_OR_RETURN(llvm::Type * tile_type, StorageType(product_type, ctx));
  llvm::Value* tile = b.CreateBitCast(function->getArg(1), tile_type->getPointerTo());
  llvm::Value* tile_ld = function->getArg(2);
  llvm::Value* batch_index = function->getArg(3);
  llvm::Value* row_begin = function->getArg(4);
  llvm::Value* row_end = function->getArg(5);
  llvm::Value* column_begin = function->getArg(6);
  llvm::Value* column_end = function->getArg(7);

  const ProductTiling tiling = TilingOf(product);
  const std::vector<int64_t>& batch_sizes = tiling.batch_sizes;
  const std::vector<int64_t>& row_sizes = tiling.row_sizes;
  const std::vector<int64_t>& column_sizes = tiling.column_sizes;
  IrArray::Index batch_part;
  AppendDelinearized(b, batch_index, batch_sizes, batch_part);

  FusedGenerators generators(b, context.module(), parameters);
  llvm::Value* tile_position = nullptr;  // set per element below
  if (in_place) {
    // The tile is the output's region: read the product where the element
    // is then written, so that the loop's accesses are one array's.
    generators.Set(product, FusedGenerators::ArrayReader(b, output));
  } else {
    generators.Set(product, [&](const IrArray::Index&) -> absl::StatusOr<llvm::Value*> {
      llvm::Value* stored =
          b.CreateLoad(tile_type, b.CreateInBoundsGEP(tile_type, tile, tile_position));
      return EmitStorageToCompute(product_type, stored, b);
    });
  }
  HMO_ASSIGN_OR_RETURN(ElementGenerator value, generators.Get(root));
  HMO_RETURN_IF_ERROR(context.EmitForLoop(
      "epilogue.row", row_begin, row_end, 1, [&](llvm::Value* row) -> absl::Status {
        IrArray::Index row_part = batch_part;
        AppendDelinearized(b, row, row_sizes, row_part);
        llvm::Value* row_start = b.CreateMul(b.CreateSub(row, row_begin), tile_ld);
        return context.EmitForLoop("epilogue.column", column_begin, column_end, 1,
                                   [&](llvm::Value* column) -> absl::Status {
                                     IrArray::Index index = row_part;
                                     AppendDelinearized(b, column, column_sizes, index);
                                     tile_position =
                                         b.CreateAdd(row_start, b.CreateSub(column, column_begin));
                                     HMO_ASSIGN_OR_RETURN(llvm::Value * v, value(index));
                                     output.EmitWriteElement(index, v, b);
                                     return absl::OkStatus();
                                   });
      }));
  b.CreateRetVoid();
  return function;
}

// The runtime call of an output fusion whose product is `dot`: the epilogue
// GEMM.
absl::Status EmitEpilogueGemmCall(KernelEmitContext& context, const HloInstruction& dot,
                                  llvm::Value* product_out, llvm::Function* epilogue) {
  const std::optional<GemmElementTypes> types = RuntimeGemmElementTypes(dot);
  const std::optional<GemmPlan> plan = GemmPlanFor(dot);
  if (!types.has_value() || !plan.has_value()) {
    return FusionError(context.instruction(), "no runtime GEMM");
  }
  llvm::IRBuilder<>& b = context.builder();
  HMO_ASSIGN_OR_RETURN(IrArray lhs, context.OperandArray(dot.operand(0)->parameter_number()));
  HMO_ASSIGN_OR_RETURN(IrArray rhs, context.OperandArray(dot.operand(1)->parameter_number()));
  llvm::Type* ptr = b.getInt8PtrTy();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* i32 = b.getInt32Ty();
  llvm::FunctionType* type =
      llvm::FunctionType::get(b.getVoidTy(),
                              {ptr, ptr, i64, i64, i64, i64, i32, i32, ptr, epilogue->getType(),
                               context.buffer_table()->getType()},
                              /*isVarArg=*/false);
  llvm::FunctionCallee gemm =
      context.GetOrDeclareFunction(RuntimeGemmFunction(*types, /*with_epilogue=*/true), type);
  b.CreateCall(
      gemm,
      {b.CreateBitCast(lhs.base(), ptr), b.CreateBitCast(rhs.base(), ptr), I64(b, plan->batch),
       I64(b, plan->m), I64(b, plan->n), I64(b, plan->k), b.getInt32(plan->transpose_lhs ? 1 : 0),
       b.getInt32(plan->transpose_rhs ? 1 : 0), product_out, epilogue, context.buffer_table()});
  return absl::OkStatus();
}

// The runtime call of an output fusion whose product is `conv`: the 2-D
// convolution with an epilogue.
absl::Status EmitEpilogueConvolutionCall(KernelEmitContext& context, const HloInstruction& conv,
                                         llvm::Value* product_out, llvm::Function* epilogue) {
  llvm::IRBuilder<>& b = context.builder();
  HMO_ASSIGN_OR_RETURN(IrArray input, context.OperandArray(conv.operand(0)->parameter_number()));
  HMO_ASSIGN_OR_RETURN(IrArray filter, context.OperandArray(conv.operand(1)->parameter_number()));
  llvm::Value* shape = EmitRuntimeConv2DShape(context, conv);
  llvm::Type* ptr = b.getInt8PtrTy();
  llvm::FunctionType* type = llvm::FunctionType::get(
      b.getVoidTy(), {ptr, ptr, ptr, ptr, epilogue->getType(), context.buffer_table()->getType()},
      /*isVarArg=*/false);
  llvm::FunctionCallee convolution = context.GetOrDeclareFunction(
      RuntimeConvolutionFunction(conv.shape().element_type(), /*with_epilogue=*/true), type);
  b.CreateCall(convolution,
               {b.CreateBitCast(input.base(), ptr), b.CreateBitCast(filter.base(), ptr), shape,
                product_out, epilogue, context.buffer_table()});
  return absl::OkStatus();
}

// An output fusion (IsOutputFusionEmittable): one call of the runtime's
// epilogue GEMM or convolution, which hands the product to the generated
// epilogue a tile at a time, so the product is never in a buffer of the plan.
absl::Status EmitOutputFusion(KernelEmitContext& context, const HloInstruction& product) {
  const HloInstruction& fusion = context.instruction();
  if (!context.runtime_calls_available()) {
    return FusionError(fusion, "an output fusion needs the runtime's GEMM or convolution");
  }
  // Tiles of the output are written while later tiles' products still read
  // the product's operands, and an epilogue reads its other operands at its
  // own element only: an operand may share the output's bytes only in that
  // way (the buffer plan lets an addend take the result; never an operand of
  // the product).
  const std::set<BufferAssignment::Slice> written = context.assignment().GetAllSlices(&fusion, {});
  for (int64_t i = 0; i < fusion.operand_count(); ++i) {
    if (!AnyOverlap(written, ReadSlices(context.assignment(), *fusion.operand(i)))) continue;
    const HloInstruction* parameter = fusion.fused_parameter(i);
    const bool product_operand = parameter == product.operand(0) || parameter == product.operand(1);
    if (product_operand || !ReachesRootElementwise(*parameter)) {
      return absl::InternalError("CPU codegen: output fusion " + fusion.name() + ": operand " +
                                 std::to_string(i) + " shares the output's bytes");
    }
  }
  // The product goes straight into the output, each tile overwritten there
  // by its epilogue, when the output holds the product's type in the
  // product's row-major order and no operand shares its bytes (an epilogue
  // operand is read after its tile's product is written); else into the
  // runtime's scratch.
  HMO_ASSIGN_OR_RETURN(IrArray output, context.OutputArray());
  std::vector<int64_t> row_major(static_cast<size_t>(output.shape().rank()));
  for (int64_t d = 0; d < output.shape().rank(); ++d) row_major[d] = output.shape().rank() - 1 - d;
  // (GemmPlanFor holds a dot's product row-major; the runtime convolution's
  // output is row-major NHWC.)
  bool in_place = output.element_type() == product.shape().element_type() &&
                  output.minor_to_major() == row_major;
  for (int64_t i = 0; i < fusion.operand_count() && in_place; ++i) {
    in_place = !AnyOverlap(written, ReadSlices(context.assignment(), *fusion.operand(i)));
  }
  HMO_ASSIGN_OR_RETURN(llvm::Function * epilogue, EmitEpilogue(context, product, in_place));
  llvm::IRBuilder<>& b = context.builder();
  llvm::Value* product_out = llvm::ConstantPointerNull::get(b.getInt8PtrTy());
  if (in_place) product_out = b.CreateBitCast(output.base(), b.getInt8PtrTy());
  if (product.opcode() == HloOpcode::kConvolution) {
    return EmitEpilogueConvolutionCall(context, product, product_out, epilogue);
  }
  return EmitEpilogueGemmCall(context, product, product_out, epilogue);
}

}  // namespace

absl::Status EmitFusionKernel(KernelEmitContext& context) {
  const HloInstruction& fusion = context.instruction();
  const HloComputation* fused = fusion.fused_instructions_computation();
  if (fused == nullptr) return FusionError(fusion, "no fused computation");
  const HloInstruction* root = fused->root_instruction();
  llvm::IRBuilder<>& b = context.builder();

  std::vector<IrArray> parameters;
  for (int64_t i = 0; i < fusion.operand_count(); ++i) {
    if (!fusion.operand(i)->shape().IsArray())
      return FusionError(fusion, "tuple-shaped operands are not supported");
    HMO_ASSIGN_OR_RETURN(IrArray array, context.OperandArray(i));
    parameters.push_back(std::move(array));
  }
  if (IsReductionFusionEmittable(fusion))
    return EmitReductionFusion(context, std::move(parameters));
  if (const HloInstruction* product = OutputFusionProduct(fusion)) {
    return EmitOutputFusion(context, *product);
  }

  // Outputs computed element by element in one loop, and outputs that are
  // dynamic-update-slices of their own buffer.
  std::vector<IrArray> outputs;
  std::vector<const HloInstruction*> expressions;
  std::vector<std::set<BufferAssignment::Slice>> output_slices;
  std::vector<PlannedUpdate> updates;
  std::vector<std::set<BufferAssignment::Slice>> update_slices;
  const bool multi_output = root->opcode() == HloOpcode::kTuple;
  const int64_t output_count = multi_output ? root->operand_count() : 1;
  for (int64_t i = 0; i < output_count; ++i) {
    const ShapeIndex index = multi_output ? ShapeIndex{i} : ShapeIndex{};
    const HloInstruction* expression = multi_output ? root->operand(i) : root;
    HMO_ASSIGN_OR_RETURN(IrArray array, context.OutputArray(index));
    if (const HloInstruction* dus =
            FusedInPlaceUpdate(fusion, expression, index, context.assignment())) {
      const Shape& updated_shape = fusion.operand(dus->operand(0)->parameter_number())->shape();
      PlannedUpdate update;
      update.dus = dus;
      update.target = IrArray(array.base(), updated_shape);
      updates.push_back(std::move(update));
      update_slices.push_back(context.assignment().GetAllSlices(&fusion, index));
      continue;
    }
    if (!outputs.empty() && array.shape().dimensions() != outputs[0].shape().dimensions()) {
      return FusionError(fusion, "multi-output fusion with outputs of different dimensions");
    }
    outputs.push_back(std::move(array));
    expressions.push_back(expression);
    output_slices.push_back(context.assignment().GetAllSlices(&fusion, index));
  }

  // The fused parameters whose buffers the kernel writes: those an update
  // changes in place, and those an element-by-element output reuses.
  std::vector<const HloInstruction*> written;
  for (const PlannedUpdate& update : updates) written.push_back(update.dus->operand(0));
  for (int64_t i = 0; i < fusion.operand_count(); ++i) {
    const auto slices = context.assignment().GetAllSlices(fusion.operand(i), {});
    if (std::find(output_slices.begin(), output_slices.end(), slices) != output_slices.end())
      written.push_back(fused->parameter_instruction(i));
  }
  // An update computed in place must read no element the kernel writes
  // before it reads it: it reads its own buffer only where it writes, and
  // no other written buffer. Where loop iterations run concurrently (a
  // GPU), any other update races with the writes; a sequential kernel
  // computes such an update first (staged), then writes.
  for (PlannedUpdate& update : updates) {
    bool in_place = UpdateReadsItsBufferOnlyWhereItWrites(*update.dus);
    for (const HloInstruction* parameter : written) {
      if (parameter != update.dus->operand(0) && DependsOn(*update.dus, *parameter))
        in_place = false;
    }
    if (in_place) continue;
    if (context.parallel_iterations_run_concurrently()) {
      return FusionError(fusion, "in-place dynamic-update-slice " + update.dus->name() +
                                     " whose update reads the updated buffer, or another buffer "
                                     "the kernel writes, elsewhere than where it writes");
    }
    const int64_t bytes = ShapeUtil::ByteSizeOf(update.dus->operand(1)->shape());
    if (bytes > kMaxStagedUpdateBytes) {
      return FusionError(fusion,
                         "in-place dynamic-update-slice " + update.dus->name() +
                             " whose update reads a buffer the kernel writes, with an update of " +
                             std::to_string(bytes) + " bytes (at most " +
                             std::to_string(kMaxStagedUpdateBytes) +
                             " are computed before they are written)");
    }
    update.staged = true;
  }

  {
    // An in-place update's buffer is an output like the others: the operand
    // it updates overlaps it and is not marked; the rest are.
    std::vector<IrArray*> output_arrays, inputs;
    std::vector<std::set<BufferAssignment::Slice>> input_slices;
    for (IrArray& output : outputs) output_arrays.push_back(&output);
    for (PlannedUpdate& update : updates) output_arrays.push_back(&update.target);
    output_slices.insert(output_slices.end(), update_slices.begin(), update_slices.end());
    for (int64_t i = 0; i < fusion.operand_count(); ++i) {
      inputs.push_back(&parameters[i]);
      input_slices.push_back(ReadSlices(context.assignment(), *fusion.operand(i)));
    }
    AnnotateDisjointAccesses(context.llvm_context(), output_arrays, output_slices, inputs,
                             input_slices);
  }

  // Before anything is written: the updates' start indices and the staged
  // updates' values.
  FusedGenerators update_generators(b, context.module(), parameters);
  for (PlannedUpdate& update : updates) {
    HMO_RETURN_IF_ERROR(EmitUpdateStarts(context, update_generators, update));
    if (update.staged) {
      HMO_RETURN_IF_ERROR(EmitStagedUpdate(context, update_generators, update));
    }
  }

  // The element-by-element outputs next: in-place updates then overwrite
  // buffers the other outputs may still have read.
  if (!outputs.empty()) {
    const bool flat = updates.empty() && CanUseFlatLoop(*fused, parameters, outputs);
    std::vector<IrArray> loop_parameters = parameters;
    if (flat) {
      for (IrArray& parameter : loop_parameters) {
        if (parameter.shape().rank() != 0) {
          parameter =
              parameter.WithShape(Shape(parameter.element_type(), {parameter.element_count()}));
        }
      }
      for (IrArray& output : outputs) {
        output = output.WithShape(Shape(output.element_type(), {output.element_count()}));
      }
    }
    FusedGenerators generators(b, context.module(), loop_parameters);
    std::vector<ElementGenerator> output_generators;
    for (const HloInstruction* expression : expressions) {
      HMO_ASSIGN_OR_RETURN(ElementGenerator g, generators.Get(*expression));
      output_generators.push_back(std::move(g));
    }
    if (outputs.size() == 1) {
      HMO_RETURN_IF_ERROR(EmitElementLoop(context, outputs[0], output_generators[0], flat));
    } else {
      // Every element of every output is computed before any is written, so
      // an output sharing an operand's buffer cannot clobber it.
      HMO_RETURN_IF_ERROR(context.EmitOutputLoopNest(
          "loop", outputs[0].shape(), [&](const IrArray::Index& index) -> absl::Status {
            std::vector<llvm::Value*> values;
            for (const ElementGenerator& g : output_generators) {
              HMO_ASSIGN_OR_RETURN(llvm::Value * v, g(index));
              values.push_back(v);
            }
            for (size_t i = 0; i < outputs.size(); ++i)
              outputs[i].EmitWriteElement(index, values[i], b);
            return absl::OkStatus();
          }));
    }
  }
  for (const PlannedUpdate& update : updates) {
    HMO_RETURN_IF_ERROR(EmitInPlaceUpdate(context, update_generators, update));
  }
  return absl::OkStatus();
}

}  // namespace hmo::codegen
