#include "cpu/codegen/module_emitter.h"

#include "hmo/codegen/value_copies.h"

#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "cpu/codegen/kernel_dependencies.h"
#include "hmo/codegen/alias_scopes.h"
#include "hmo/collectives/collective_plan.h"
#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/kernel_emit_context.h"
#include "hmo/codegen/fusion_emitter.h"
#include "hmo/codegen/kernel_emitter.h"
#include "hmo/base/status_macros.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/Host.h"
#include "llvm/Support/raw_ostream.h"

namespace hmo::cpu {
namespace {

// Kernels writing fewer bytes than this are optimized for size.
constexpr int64_t kSmallKernelBytes = 4096;
// Parts per kernel at most (more than any thread count it runs with).
constexpr int64_t kMaxParts = 64;
// The most kernels one dependency graph holds (its analysis is quadratic);
// a longer run of kernels is several graphs, one after the other.
constexpr int64_t kMaxGraphKernels = 1024;

// LLVM symbol names: HLO names may hold '-', which is fine in LLVM IR but
// not in every tool; keep [A-Za-z0-9_.].
std::string SanitizeName(std::string_view name) {
  std::string out;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '.';
    out.push_back(ok ? c : '_');
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(out.begin(), '_');
  return out;
}

// Names a kernel must not take: functions generated code calls, directly
// or through LLVM intrinsics lowered to library calls, which a local
// definition of the same name would capture.
bool IsLibraryFunctionName(std::string_view name) {
  static const absl::flat_hash_set<std::string_view> kNames = {
      "memcpy", "memmove", "memset", "exp",    "expf",  "expm1", "expm1f", "log",   "logf",  "log1p",
      "log1pf", "sin",     "sinf",   "cos",    "cosf",  "tan",   "tanf",   "tanh",  "tanhf", "cbrt",
      "cbrtf",  "erf",     "erff",   "atan2",  "atan2f", "pow",  "powf",   "fmod",  "fmodf", "round",
      "roundf", "rint",    "rintf",  "floor",  "floorf", "ceil", "ceilf",  "sqrt",  "sqrtf", "fabs",
      "fabsf"};
  return kNames.contains(name) || name.substr(0, 5) == "__hmo";
}

class ModuleEmitter {
 public:
  ModuleEmitter(const HloModule& hlo, const BufferAssignment& assignment, llvm::Module& module,
                const CodegenOptions& options)
      : hlo_(hlo), assignment_(assignment), module_(module), options_(options), builder_(module.getContext()) {}

  absl::Status Run() {
    const HloComputation* entry = hlo_.entry_computation();
    if (entry == nullptr) return absl::InvalidArgumentError("CPU codegen: the module has no entry computation");
    reserved_names_.insert(options_.entry_function_name);
    // Declare every computation's function first: while/conditional/call
    // sites refer to them before they are emitted.
    std::vector<const HloComputation*> order;
    CollectComputations(entry, &order);
    for (const HloComputation* computation : order) {
      computation_functions_[computation] =
          NewFunction(UniqueName("computation." + SanitizeName(computation->name())));
    }
    for (const HloComputation* computation : order) HMO_RETURN_IF_ERROR(EmitComputation(*computation));

    llvm::Function* entry_function = NewFunction(options_.entry_function_name);
    entry_function->setLinkage(llvm::GlobalValue::ExternalLinkage);
    builder_.SetInsertPoint(llvm::BasicBlock::Create(module_.getContext(), "entry", entry_function));
    builder_.CreateCall(computation_functions_.at(entry), {entry_function->getArg(0)});
    builder_.CreateRetVoid();

    std::string errors;
    llvm::raw_string_ostream stream(errors);
    if (llvm::verifyModule(module_, &stream)) {
      return absl::InternalError("CPU codegen produced invalid LLVM IR: " + stream.str());
    }
    return absl::OkStatus();
  }

  int64_t kernel_count() const { return kernel_count_; }
  std::vector<std::string> TakeWhileLoops() { return std::move(while_loops_); }
  std::vector<const HloInstruction*> TakeCollectives() { return std::move(collectives_); }

 private:
  // The entry and what it reaches through while, conditional and call,
  // callees first.
  void CollectComputations(const HloComputation* computation, std::vector<const HloComputation*>* order) {
    if (!visited_.insert(computation).second) return;
    for (const HloInstruction* instruction : computation->instructions()) {
      switch (instruction->opcode()) {
        case HloOpcode::kWhile:
        case HloOpcode::kConditional:
        case HloOpcode::kCall:
          for (const HloComputation* callee : instruction->called_computations()) CollectComputations(callee, order);
          break;
        default:
          break;
      }
    }
    order->push_back(computation);
  }

  std::string UniqueName(const std::string& base) {
    std::string name = base;
    for (int k = 1; reserved_names_.contains(name) || module_.getNamedValue(name) != nullptr ||
                    IsLibraryFunctionName(name);
         ++k) {
      name = base + "." + std::to_string(k);
    }
    reserved_names_.insert(name);
    return name;
  }

  // `void name(char** buffer_table)`, internal; with `part_arguments`,
  // `void name(char** buffer_table, i64 part, i64 parts)` (a kernel part).
  llvm::Function* NewFunction(const std::string& name, bool part_arguments = false) {
    llvm::LLVMContext& context = module_.getContext();
    llvm::Type* table_type = llvm::Type::getInt8PtrTy(context)->getPointerTo();
    std::vector<llvm::Type*> arguments = {table_type};
    if (part_arguments) {
      arguments.push_back(llvm::Type::getInt64Ty(context));
      arguments.push_back(llvm::Type::getInt64Ty(context));
    }
    auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), arguments, false);
    llvm::Function* f = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, name, module_);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    f->getArg(0)->setName("buffer_table");
    f->addParamAttr(0, llvm::Attribute::NoCapture);
    f->addParamAttr(0, llvm::Attribute::ReadOnly);
    return f;
  }

  // The address of `instruction`'s value at `index`: its slice, or the
  // global of a constant without one. Null (with OK) for values of no bytes.
  absl::StatusOr<llvm::Value*> ValueAddress(codegen::KernelEmitContext& context,
                                            const HloInstruction& instruction,
                                            const ShapeIndex& index) {
    const std::set<BufferAssignment::Slice> slices = assignment_.GetAllSlices(&instruction, index);
    if (slices.empty() && instruction.opcode() == HloOpcode::kConstant && index.empty()) {
      codegen::ElementalIrEmitter emitter(builder_, module_);
      HMO_ASSIGN_OR_RETURN(llvm::GlobalVariable * global, emitter.GetOrCreateConstantGlobal(instruction));
      return builder_.CreatePointerCast(global, builder_.getInt8PtrTy());
    }
    if (slices.empty() && ShapeUtil::ByteSizeOf(ShapeUtil::GetSubshape(instruction.shape(), index)) == 0) {
      return static_cast<llvm::Value*>(nullptr);
    }
    return context.SliceAddress(instruction, index);
  }

  // Makes the value of `to` at `to_index` hold the value of `from` at
  // `from_index` (same shape): for each array leaf, nothing when both live
  // in the same slice, else a copy of its bytes.
  absl::Status CopyValue(codegen::KernelEmitContext& context, const HloInstruction& from,
                         const ShapeIndex& from_index, const HloInstruction& to,
                         const ShapeIndex& to_index) {
    return codegen::ForEachLeafNeedingCopy(
        assignment_, from, from_index, to, to_index,
        [&](const ShapeIndex& src_index, const ShapeIndex& dst_index,
            int64_t bytes) -> absl::Status {
          HMO_ASSIGN_OR_RETURN(llvm::Value * src, ValueAddress(context, from, src_index));
          HMO_ASSIGN_OR_RETURN(llvm::Value * dst, ValueAddress(context, to, dst_index));
          // memmove: a careless schedule could make the ranges overlap.
          builder_.CreateMemMove(dst, llvm::MaybeAlign(1), src, llvm::MaybeAlign(1), builder_.getInt64(bytes));
          return absl::OkStatus();
        });
  }

  // How many parts `instruction`'s kernel is split into (1: not split). Only
  // a kernel that is one loop over its output (IsPartitionableKernel) whose
  // output shares no byte with an operand: its parts then write disjoint
  // bytes and read none another part writes.
  int64_t KernelParts(const HloInstruction& instruction) const {
    // The work: the bytes written, or read when that is more (a reduction).
    int64_t bytes = ShapeUtil::ByteSizeOf(instruction.shape());
    for (const HloInstruction* operand : instruction.operands()) {
      if (operand->shape().IsArray())
        bytes = std::max(bytes, ShapeUtil::ByteSizeOf(operand->shape()));
    }
    // The parts split the output's indices (a multi-output kernel's outputs
    // share one index space: its first output's).
    const Shape& output =
        instruction.shape().IsTuple() && !instruction.shape().tuple_shapes().empty()
            ? instruction.shape().tuple_shapes()[0]
            : instruction.shape();
    if (bytes < 2 * codegen::kMinPartBytes || !output.IsArray() ||
        ShapeUtil::ElementsIn(output) < 2 || !codegen::IsPartitionableKernel(instruction)) {
      return 1;
    }
    if (codegen::OutputsOverlapOperands(assignment_, instruction)) return 1;
    return std::min(kMaxParts, bytes / codegen::kMinPartBytes);
  }

  // A kernel's function and how many parts it runs in (1: not split).
  struct EmittedKernel {
    llvm::Function* function = nullptr;
    int64_t parts = 1;
    // Whether it must start on the thread running the computation: its
    // parts, or the runtime function it calls (GEMM, convolution, sort),
    // run on the intra-op pool only from there (HmoCpuKernelNode).
    bool on_calling_thread = false;
  };

  absl::StatusOr<EmittedKernel> EmitKernel(const HloInstruction& instruction) {
    const int64_t parts = KernelParts(instruction);
    llvm::Function* kernel = NewFunction(UniqueName(SanitizeName(instruction.name())), parts > 1);
    // Nothing else touches the table while a kernel runs.
    kernel->addParamAttr(0, llvm::Attribute::NoAlias);
    // Kernels stay functions of their own: inlining hundreds of them into
    // one computation function makes LLVM's optimizer superlinear (a
    // 1000-kernel module took 80 s at O1), and a kernel body gains nothing
    // from its neighbours.
    kernel->addFnAttr(llvm::Attribute::NoInline);
    // Small kernels are compiled for size: vectorizing and unrolling a loop
    // of a few hundred elements costs more compile time than it saves.
    if (ShapeUtil::ByteSizeOf(instruction.shape()) < kSmallKernelBytes) {
      kernel->addFnAttr(llvm::Attribute::OptimizeForSize);
    }
    ++kernel_count_;
    llvm::IRBuilder<> kernel_builder(llvm::BasicBlock::Create(module_.getContext(), "entry", kernel));
    codegen::KernelEmitContext context(kernel_builder, module_, *kernel, kernel->getArg(0),
                                       assignment_, instruction);
    if (parts > 1) context.SetOutputPartition(kernel->getArg(1), kernel->getArg(2));
    HMO_RETURN_IF_ERROR(codegen::EmitKernelBody(context));
    kernel_builder.CreateRetVoid();
    const bool calls_pool_runtime = instruction.opcode() == HloOpcode::kDot ||
                                    instruction.opcode() == HloOpcode::kConvolution ||
                                    instruction.opcode() == HloOpcode::kSort ||
                                    (instruction.opcode() == HloOpcode::kFusion &&
                                     codegen::IsOutputFusionEmittable(instruction));
    return EmittedKernel{kernel, parts, parts > 1 || calls_pool_runtime};
  }

  void EmitKernelCall(const EmittedKernel& kernel, llvm::Value* table) {
    if (kernel.parts == 1) {
      builder_.CreateCall(kernel.function, {table});
      return;
    }
    // The runtime runs the parts on the intra-op threads.
    llvm::LLVMContext& llvm_context = module_.getContext();
    llvm::FunctionCallee parallel_for = module_.getOrInsertFunction(
        "__hmo_cpu_parallel_for", llvm::FunctionType::get(llvm::Type::getVoidTy(llvm_context),
                                                          {kernel.function->getType(),
                                                           table->getType(), builder_.getInt64Ty()},
                                                          /*isVarArg=*/false));
    builder_.CreateCall(parallel_for, {kernel.function, table, builder_.getInt64(kernel.parts)});
  }

  absl::Status EmitKernelAndCall(const HloInstruction& instruction, llvm::Value* table) {
    HMO_ASSIGN_OR_RETURN(EmittedKernel kernel, EmitKernel(instruction));
    EmitKernelCall(kernel, table);
    return absl::OkStatus();
  }

  // Whether EmitInstruction runs `instruction` as a call of its own kernel
  // (EmitKernelAndCall), rather than as data movement, control flow, a
  // collective or nothing.
  static bool RunsAsKernel(const HloInstruction& instruction) {
    switch (instruction.opcode()) {
      case HloOpcode::kAllReduceDone:
      case HloOpcode::kAllGatherDone:
      case HloOpcode::kCollectivePermuteDone:
        return false;  // copies of their start's result
      default:
        break;
    }
    return codegen::NeedsKernel(instruction) &&
           !collectives::IsPlannedCollective(instruction.opcode()) &&
           !(instruction.shape().IsArray() && ShapeUtil::ElementsIn(instruction.shape()) == 0);
  }

  // Whether EmitInstruction emits no code for `instruction`: nothing to
  // compute, or value moves between slices that coincide.
  absl::StatusOr<bool> EmitsNothing(const HloInstruction& instruction) {
    const auto no_copy = [&](const HloInstruction& from, const ShapeIndex& from_index,
                             const ShapeIndex& to_index) -> absl::StatusOr<bool> {
      bool copies = false;
      HMO_RETURN_IF_ERROR(
          codegen::ForEachLeafNeedingCopy(assignment_, from, from_index, instruction, to_index,
                                          [&](const ShapeIndex&, const ShapeIndex&, int64_t) {
                                            copies = true;
                                            return absl::OkStatus();
                                          }));
      return !copies;
    };
    switch (instruction.opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kAfterAll:
        return true;
      case HloOpcode::kTuple:
        for (int64_t i = 0; i < instruction.operand_count(); ++i) {
          HMO_ASSIGN_OR_RETURN(bool none, no_copy(*instruction.operand(i), {}, {i}));
          if (!none) return false;
        }
        return true;
      case HloOpcode::kGetTupleElement:
        return no_copy(*instruction.operand(0), {instruction.tuple_index()}, {});
      case HloOpcode::kBitcast:
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kAddDependency:
        return no_copy(*instruction.operand(0), {}, {});
      default:
        return false;
    }
  }

  // The kernels of a stretch of the schedule with nothing else between them:
  // one call each, in order; or, when two neighbours are independent
  // (KernelPredecessors) and one of them may run on a pool thread (so
  // running them side by side uses threads that would idle), one
  // __hmo_cpu_run_kernel_graph call running them as their dependency graph.
  absl::Status EmitKernels(const std::vector<const HloInstruction*>& instructions,
                           llvm::Value* table) {
    std::vector<EmittedKernel> kernels;
    for (const HloInstruction* instruction : instructions) {
      HMO_ASSIGN_OR_RETURN(EmittedKernel kernel, EmitKernel(*instruction));
      kernels.push_back(kernel);
    }
    const int64_t count = static_cast<int64_t>(kernels.size());
    std::vector<std::vector<int64_t>> predecessors;
    bool concurrent = false;
    if (options_.concurrent_kernels && count > 1) {
      predecessors = KernelPredecessors(assignment_, instructions);
      for (int64_t j = 1; j < count && !concurrent; ++j) {
        const bool waits_for_previous = std::find(predecessors[j].begin(), predecessors[j].end(),
                                                  j - 1) != predecessors[j].end();
        concurrent = !waits_for_previous &&
                     (!kernels[j].on_calling_thread || !kernels[j - 1].on_calling_thread);
      }
    }
    if (!concurrent) {
      for (const EmittedKernel& kernel : kernels) EmitKernelCall(kernel, table);
      return absl::OkStatus();
    }
    std::vector<std::vector<int64_t>> successors(count);
    for (int64_t j = 0; j < count; ++j) {
      for (int64_t i : predecessors[j]) successors[i].push_back(j);
    }
    llvm::LLVMContext& context = module_.getContext();
    llvm::Type* i64 = builder_.getInt64Ty();
    llvm::Type* i8_ptr = builder_.getInt8PtrTy();
    // HmoCpuKernelNode (runtime_functions.h).
    llvm::StructType* node_type = llvm::StructType::get(context, {i8_ptr, i64, i64, i64, i64, i64});
    std::vector<llvm::Constant*> nodes;
    std::vector<uint64_t> flat_successors;
    for (int64_t j = 0; j < count; ++j) {
      nodes.push_back(llvm::ConstantStruct::get(
          node_type, {llvm::ConstantExpr::getBitCast(kernels[j].function, i8_ptr),
                      builder_.getInt64(kernels[j].parts),
                      builder_.getInt64(kernels[j].on_calling_thread ? 1 : 0),
                      builder_.getInt64(static_cast<int64_t>(predecessors[j].size())),
                      builder_.getInt64(static_cast<int64_t>(flat_successors.size())),
                      builder_.getInt64(static_cast<int64_t>(successors[j].size()))}));
      flat_successors.insert(flat_successors.end(), successors[j].begin(), successors[j].end());
    }
    const std::string name = UniqueName("kernel_graph." + SanitizeName(instructions[0]->name()));
    auto* node_array_type = llvm::ArrayType::get(node_type, static_cast<uint64_t>(count));
    auto* node_global = new llvm::GlobalVariable(
        module_, node_array_type, /*isConstant=*/true, llvm::GlobalValue::InternalLinkage,
        llvm::ConstantArray::get(node_array_type, nodes), name);
    reserved_names_.insert(name);
    if (flat_successors.empty()) flat_successors.push_back(0);  // no empty array
    auto* successor_global = new llvm::GlobalVariable(
        module_, llvm::ArrayType::get(i64, flat_successors.size()), /*isConstant=*/true,
        llvm::GlobalValue::InternalLinkage, llvm::ConstantDataArray::get(context, flat_successors),
        name + ".successors");
    llvm::FunctionCallee run = module_.getOrInsertFunction(
        "__hmo_cpu_run_kernel_graph",
        llvm::FunctionType::get(
            builder_.getVoidTy(),
            {node_type->getPointerTo(), i64, i64->getPointerTo(), table->getType()},
            /*isVarArg=*/false));
    builder_.CreateCall(run,
                        {builder_.CreateConstInBoundsGEP2_64(node_array_type, node_global, 0, 0),
                         builder_.getInt64(count),
                         builder_.CreateConstInBoundsGEP2_64(successor_global->getValueType(),
                                                             successor_global, 0, 0),
                         table});
    return absl::OkStatus();
  }

  absl::Status EmitWhile(codegen::KernelEmitContext& context, const HloInstruction& loop,
                         llvm::Value* table) {
    const HloComputation* condition = loop.while_condition();
    const HloComputation* body = loop.while_body();
    llvm::LLVMContext& llvm_context = module_.getContext();
    llvm::Function* function = builder_.GetInsertBlock()->getParent();
    const std::string prefix = "while." + SanitizeName(loop.name());
    const int64_t loop_index = static_cast<int64_t>(while_loops_.size());
    while_loops_.push_back(loop.name());
    HMO_RETURN_IF_ERROR(CopyValue(context, *loop.operand(0), {}, loop, {}));
    llvm::BasicBlock* preheader = builder_.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(llvm_context, prefix + ".header", function);
    auto* condition_block = llvm::BasicBlock::Create(llvm_context, prefix + ".condition", function);
    auto* budget_block = llvm::BasicBlock::Create(llvm_context, prefix + ".budget", function);
    auto* over_block = llvm::BasicBlock::Create(llvm_context, prefix + ".over_budget", function);
    auto* body_block = llvm::BasicBlock::Create(llvm_context, prefix + ".body", function);
    auto* exit = llvm::BasicBlock::Create(llvm_context, prefix + ".exit", function);
    // The budget (module_emitter.h): buffer_table[allocation count].
    llvm::Type* i64 = builder_.getInt64Ty();
    llvm::Value* budget = builder_.CreatePointerCast(
        builder_.CreateLoad(builder_.getInt8PtrTy(),
                            builder_.CreateConstInBoundsGEP1_64(
                                builder_.getInt8PtrTy(), table,
                                static_cast<uint64_t>(assignment_.Allocations().size())),
                            prefix + ".budget_address"),
        i64->getPointerTo());
    static_assert(offsetof(LoopTripBudget, max_trips) == 0 &&
                  offsetof(LoopTripBudget, exceeded_loop) == sizeof(int64_t));
    llvm::Value* max_trips = builder_.CreateLoad(i64, budget, prefix + ".max_trips");
    llvm::Value* exceeded_address = builder_.CreateConstInBoundsGEP1_64(i64, budget, 1);
    builder_.CreateBr(header);

    // A loop that ran out of budget, this one or any other, ends every loop.
    builder_.SetInsertPoint(header);
    llvm::PHINode* trips = builder_.CreatePHI(i64, 2, prefix + ".trips");
    trips->addIncoming(builder_.getInt64(0), preheader);
    llvm::Value* exceeded = builder_.CreateLoad(i64, exceeded_address, prefix + ".exceeded");
    builder_.CreateCondBr(builder_.CreateICmpSGE(exceeded, builder_.getInt64(0)), exit,
                          condition_block);

    builder_.SetInsertPoint(condition_block);
    HMO_RETURN_IF_ERROR(CopyValue(context, loop, {}, *condition->parameter_instruction(0), {}));
    builder_.CreateCall(computation_functions_.at(condition), {table});
    HMO_ASSIGN_OR_RETURN(llvm::Value * pred_address, ValueAddress(context, *condition->root_instruction(), {}));
    if (pred_address == nullptr) return absl::InternalError("CPU codegen: while condition has no result buffer");
    llvm::Value* pred = builder_.CreateLoad(builder_.getInt8Ty(), pred_address, prefix + ".pred");
    builder_.CreateCondBr(builder_.CreateICmpNE(pred, builder_.getInt8(0)), budget_block, exit);

    builder_.SetInsertPoint(budget_block);
    llvm::Value* over =
        builder_.CreateAnd(builder_.CreateICmpSGE(max_trips, builder_.getInt64(0)),
                           builder_.CreateICmpSGE(trips, max_trips), prefix + ".over");
    builder_.CreateCondBr(over, over_block, body_block);

    builder_.SetInsertPoint(over_block);
    builder_.CreateStore(builder_.getInt64(loop_index), exceeded_address);
    builder_.CreateBr(exit);

    builder_.SetInsertPoint(body_block);
    HMO_RETURN_IF_ERROR(CopyValue(context, loop, {}, *body->parameter_instruction(0), {}));
    builder_.CreateCall(computation_functions_.at(body), {table});
    HMO_RETURN_IF_ERROR(CopyValue(context, *body->root_instruction(), {}, loop, {}));
    trips->addIncoming(builder_.CreateAdd(trips, builder_.getInt64(1)), builder_.GetInsertBlock());
    builder_.CreateBr(header);

    builder_.SetInsertPoint(exit);
    return absl::OkStatus();
  }

  absl::Status EmitConditional(codegen::KernelEmitContext& context,
                               const HloInstruction& conditional, llvm::Value* table) {
    llvm::LLVMContext& llvm_context = module_.getContext();
    llvm::Function* function = builder_.GetInsertBlock()->getParent();
    const std::string prefix = "conditional." + SanitizeName(conditional.name());
    const int64_t branches = conditional.branch_count();
    if (branches == 0) return absl::InvalidArgumentError("CPU codegen: conditional without branches");
    const HloInstruction& selector = *conditional.operand(0);
    HMO_ASSIGN_OR_RETURN(llvm::Value * selector_address, ValueAddress(context, selector, {}));
    if (selector_address == nullptr) return absl::InternalError("CPU codegen: conditional selector has no buffer");
    llvm::Value* branch_index;
    if (selector.shape().element_type() == PrimitiveType::PRED) {
      // true -> branch 0 (true_computation), false -> branch 1.
      llvm::Value* pred = builder_.CreateLoad(builder_.getInt8Ty(), selector_address);
      branch_index = builder_.CreateSelect(builder_.CreateICmpNE(pred, builder_.getInt8(0)), builder_.getInt32(0),
                                           builder_.getInt32(1));
    } else if (selector.shape().element_type() == PrimitiveType::S32) {
      branch_index = builder_.CreateLoad(builder_.getInt32Ty(), selector_address);
    } else {
      return absl::UnimplementedError("CPU codegen: conditional " + conditional.name() +
                                      ": the branch index must be pred or s32");
    }
    auto* merge = llvm::BasicBlock::Create(llvm_context, prefix + ".merge", function);
    std::vector<llvm::BasicBlock*> blocks;
    for (int64_t k = 0; k < branches; ++k) {
      blocks.push_back(llvm::BasicBlock::Create(llvm_context, prefix + ".branch" + std::to_string(k), function));
    }
    // An out-of-range index runs the last branch.
    llvm::SwitchInst* dispatch = builder_.CreateSwitch(branch_index, blocks.back(), static_cast<unsigned>(branches - 1));
    for (int64_t k = 0; k + 1 < branches; ++k) dispatch->addCase(builder_.getInt32(static_cast<uint32_t>(k)), blocks[k]);
    for (int64_t k = 0; k < branches; ++k) {
      builder_.SetInsertPoint(blocks[k]);
      const HloComputation* branch = conditional.branch_computation(k);
      if (branch->num_parameters() > 0) {
        HMO_RETURN_IF_ERROR(CopyValue(context, *conditional.operand(k + 1), {}, *branch->parameter_instruction(0), {}));
      }
      builder_.CreateCall(computation_functions_.at(branch), {table});
      HMO_RETURN_IF_ERROR(CopyValue(context, *branch->root_instruction(), {}, conditional, {}));
      builder_.CreateBr(merge);
    }
    builder_.SetInsertPoint(merge);
    return absl::OkStatus();
  }

  // An array of `addresses` (null entries for values of no bytes) on the
  // stack of the current function, allocated in its entry block.
  llvm::Value* AddressArray(const std::vector<llvm::Value*>& addresses, const std::string& name) {
    llvm::Function* function = builder_.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry_builder(&function->getEntryBlock(), function->getEntryBlock().begin());
    llvm::Type* pointer = builder_.getInt8PtrTy();
    llvm::AllocaInst* array = entry_builder.CreateAlloca(
        llvm::ArrayType::get(pointer, std::max<size_t>(1, addresses.size())), nullptr, name);
    for (size_t i = 0; i < addresses.size(); ++i) {
      llvm::Value* slot =
          builder_.CreateConstInBoundsGEP2_64(array->getAllocatedType(), array, 0, i);
      llvm::Value* address =
          addresses[i] == nullptr
              ? llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(pointer))
              : builder_.CreatePointerCast(addresses[i], pointer);
      builder_.CreateStore(address, slot);
    }
    return builder_.CreatePointerCast(array, pointer->getPointerTo());
  }

  // A collective: the runtime runs its plan (module_emitter.h).
  absl::Status EmitCollective(codegen::KernelEmitContext& context,
                              const HloInstruction& instruction, llvm::Value* table) {
    if (instruction.opcode() == HloOpcode::kAllGatherStart ||
        instruction.opcode() == HloOpcode::kCollectivePermuteStart) {
      const bool tuple = ShapeUtil::GetSubshape(instruction.shape(), {0}).IsTuple();
      for (int64_t i = 0; i < instruction.operand_count(); ++i) {
        HMO_RETURN_IF_ERROR(CopyValue(context, *instruction.operand(i), {}, instruction,
                                      tuple ? ShapeIndex{0, i} : ShapeIndex{0}));
      }
    }
    std::vector<llvm::Value*> send, receive;
    for (const HloInstruction* operand : instruction.operands()) {
      if (!operand->shape().IsArray()) {
        return absl::UnimplementedError("CPU codegen: " + instruction.name() +
                                        ": an operand is not an array");
      }
      HMO_ASSIGN_OR_RETURN(llvm::Value * address, ValueAddress(context, *operand, {}));
      send.push_back(address);
    }
    for (const ShapeIndex& index : collectives::CollectiveReceiveIndices(instruction)) {
      HMO_ASSIGN_OR_RETURN(llvm::Value * address, ValueAddress(context, instruction, index));
      receive.push_back(address);
    }
    const std::string prefix = SanitizeName(instruction.name());
    llvm::Value* send_array = AddressArray(send, prefix + ".send");
    llvm::Value* receive_array = AddressArray(receive, prefix + ".receive");
    llvm::Type* pointer = builder_.getInt8PtrTy();
    llvm::Value* device_context = builder_.CreateLoad(
        pointer,
        builder_.CreateConstInBoundsGEP1_64(
            pointer, table, static_cast<uint64_t>(assignment_.Allocations().size()) + 1),
        prefix + ".device_context");
    llvm::FunctionCallee run = module_.getOrInsertFunction(
        "__hmo_cpu_collective",
        llvm::FunctionType::get(
            builder_.getVoidTy(),
            {pointer, builder_.getInt64Ty(), pointer->getPointerTo(), pointer->getPointerTo()},
            /*isVarArg=*/false));
    builder_.CreateCall(
        run, {device_context, builder_.getInt64(static_cast<int64_t>(collectives_.size())),
              send_array, receive_array});
    collectives_.push_back(&instruction);
    return absl::OkStatus();
  }

  absl::Status EmitInstruction(const HloInstruction& instruction, llvm::Function* function, llvm::Value* table) {
    codegen::KernelEmitContext context(builder_, module_, *function, table, assignment_,
                                       instruction);
    switch (instruction.opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kAfterAll:
        return absl::OkStatus();
      case HloOpcode::kConstant: {
        const std::set<BufferAssignment::Slice> slices = assignment_.GetAllSlices(&instruction, {});
        if (slices.empty() || !instruction.shape().IsArray()) return absl::OkStatus();
        codegen::ElementalIrEmitter emitter(builder_, module_);
        HMO_ASSIGN_OR_RETURN(llvm::GlobalVariable * global, emitter.GetOrCreateConstantGlobal(instruction));
        // A constant allocation is the global itself (the executable points
        // the buffer table at it): nothing to copy.
        if (assignment_.GetAllocation(slices.begin()->index).is_constant()) return absl::OkStatus();
        HMO_ASSIGN_OR_RETURN(llvm::Value * slice, context.SliceAddress(instruction, {}));
        builder_.CreateMemCpy(slice, llvm::MaybeAlign(1), global, llvm::MaybeAlign(1),
                              builder_.getInt64(ShapeUtil::ByteSizeOf(instruction.shape())));
        return absl::OkStatus();
      }
      case HloOpcode::kTuple:
        for (int64_t i = 0; i < instruction.operand_count(); ++i) {
          HMO_RETURN_IF_ERROR(CopyValue(context, *instruction.operand(i), {}, instruction, {i}));
        }
        return absl::OkStatus();
      case HloOpcode::kGetTupleElement:
        return CopyValue(context, *instruction.operand(0), {instruction.tuple_index()}, instruction, {});
      case HloOpcode::kBitcast:
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kAddDependency:
        return CopyValue(context, *instruction.operand(0), {}, instruction, {});
      case HloOpcode::kCopyStart:
        return CopyValue(context, *instruction.operand(0), {}, instruction, {0});
      case HloOpcode::kCopyDone:
        return CopyValue(context, *instruction.operand(0), {0}, instruction, {});
      case HloOpcode::kAllReduceDone:
        return CopyValue(context, *instruction.operand(0), {}, instruction, {});
      case HloOpcode::kAllGatherDone:
      case HloOpcode::kCollectivePermuteDone:
        return CopyValue(context, *instruction.operand(0), {1}, instruction, {});
      case HloOpcode::kWhile:
        return EmitWhile(context, instruction, table);
      case HloOpcode::kConditional:
        return EmitConditional(context, instruction, table);
      case HloOpcode::kCall: {
        const HloComputation* callee = instruction.to_apply();
        for (int64_t i = 0; i < instruction.operand_count(); ++i) {
          HMO_RETURN_IF_ERROR(CopyValue(context, *instruction.operand(i), {}, *callee->parameter_instruction(i), {}));
        }
        builder_.CreateCall(computation_functions_.at(callee), {table});
        return CopyValue(context, *callee->root_instruction(), {}, instruction, {});
      }
      case HloOpcode::kCustomCall:
        // The host offloader's AllocateBuffer only defines a buffer (its
        // contents are written by dynamic-update-slices before any read).
        if (instruction.custom_call_target() == "AllocateBuffer" && instruction.operand_count() == 0) {
          return absl::OkStatus();
        }
        [[fallthrough]];
      case HloOpcode::kCopy:
        if (!codegen::NeedsKernel(instruction)) {
          // MoveToHost / MoveToDevice / annotate_device_placement, or a copy
          // of a tuple: leaf-by-leaf copies.
          return CopyValue(context, *instruction.operand(0), {}, instruction, {});
        }
        break;
      default:
        if (collectives::IsPlannedCollective(instruction.opcode()))
          return EmitCollective(context, instruction, table);
        break;
    }
    if (instruction.shape().IsArray() && ShapeUtil::ElementsIn(instruction.shape()) == 0) {
      return absl::OkStatus();  // nothing to compute
    }
    return EmitKernelAndCall(instruction, table);
  }

  absl::Status EmitComputation(const HloComputation& computation) {
    llvm::Function* function = computation_functions_.at(&computation);
    builder_.SetInsertPoint(llvm::BasicBlock::Create(module_.getContext(), "entry", function));
    llvm::Value* table = function->getArg(0);
    const HloSchedule& schedule = assignment_.schedule();
    std::vector<HloInstruction*> sequence = schedule.is_computation_scheduled(&computation)
                                                ? schedule.sequence(&computation).instructions()
                                                : computation.MakeInstructionPostOrder();
    // Runs of kernels (with nothing emitted between them) go out together,
    // so that independent ones can run at the same time.
    std::vector<const HloInstruction*> kernels;
    for (const HloInstruction* instruction : sequence) {
      if (RunsAsKernel(*instruction)) {
        kernels.push_back(instruction);
        if (static_cast<int64_t>(kernels.size()) == kMaxGraphKernels) {
          HMO_RETURN_IF_ERROR(EmitKernels(kernels, table));
          kernels.clear();
        }
        continue;
      }
      HMO_ASSIGN_OR_RETURN(bool nothing, EmitsNothing(*instruction));
      if (nothing) continue;
      if (!kernels.empty()) HMO_RETURN_IF_ERROR(EmitKernels(kernels, table));
      kernels.clear();
      HMO_RETURN_IF_ERROR(EmitInstruction(*instruction, function, table));
    }
    if (!kernels.empty()) HMO_RETURN_IF_ERROR(EmitKernels(kernels, table));
    builder_.CreateRetVoid();
    return absl::OkStatus();
  }

  const HloModule& hlo_;
  const BufferAssignment& assignment_;
  llvm::Module& module_;
  const CodegenOptions& options_;
  llvm::IRBuilder<> builder_;
  absl::flat_hash_set<const HloComputation*> visited_;
  absl::flat_hash_map<const HloComputation*, llvm::Function*> computation_functions_;
  absl::flat_hash_set<std::string> reserved_names_;
  int64_t kernel_count_ = 0;
  std::vector<std::string> while_loops_;
  std::vector<const HloInstruction*> collectives_;
};

}  // namespace

absl::StatusOr<EmittedModule> EmitModule(const HloModule& module, const BufferAssignment& assignment,
                                         const CodegenOptions& options) {
  EmittedModule emitted;
  emitted.context = std::make_unique<llvm::LLVMContext>();
  emitted.module = std::make_unique<llvm::Module>("hmo." + SanitizeName(module.name()), *emitted.context);
  emitted.module->setTargetTriple(llvm::sys::getProcessTriple());
  emitted.entry_function_name = options.entry_function_name;
  ModuleEmitter emitter(module, assignment, *emitted.module, options);
  HMO_RETURN_IF_ERROR(emitter.Run());
  emitted.kernel_count = emitter.kernel_count();
  emitted.while_loops = emitter.TakeWhileLoops();
  emitted.collectives = emitter.TakeCollectives();
  return emitted;
}

}  // namespace hmo::cpu
