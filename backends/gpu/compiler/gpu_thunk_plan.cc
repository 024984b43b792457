#include "gpu/compiler/gpu_thunk_plan.h"

#include <utility>

#include "gpu/codegen/gpu_kernel_emitter.h"
#include "hmo/codegen/gemm_plan.h"
#include "hmo/codegen/value_copies.h"
#include "gpu/compiler/gpu_collectives.h"
#include "fmt/format.h"
#include "hmo/base/status_macros.h"

namespace hmo::gpu {
namespace {

class ThunkPlanBuilder {
 public:
  ThunkPlanBuilder(const BufferAssignment& assignment, const GpuKernelModule& kernels,
                   int num_replicas, DeviceGrid grid)
      : assignment_(assignment), kernels_(kernels), num_replicas_(num_replicas), grid_(grid) {
    for (size_t i = 0; i < kernels.kernels.size(); ++i) {
      kernel_index_[kernels.kernels[i].instruction] = static_cast<int64_t>(i);
    }
  }

  absl::Status EmitComputation(const HloComputation& computation, ThunkSequence& out) {
    const HloSchedule& schedule = assignment_.schedule();
    const std::vector<HloInstruction*> sequence = schedule.is_computation_scheduled(&computation)
                                                      ? schedule.sequence(&computation).instructions()
                                                      : computation.MakeInstructionPostOrder();
    for (const HloInstruction* instruction : sequence) HMO_RETURN_IF_ERROR(EmitInstruction(*instruction, out));
    return absl::OkStatus();
  }

  std::vector<const HloInstruction*> TakeConstants() { return std::move(constants_); }
  bool has_collectives() const { return has_collectives_; }

 private:
  absl::StatusOr<BufferAssignment::Slice> UniqueSlice(const HloInstruction& instruction, const ShapeIndex& index) {
    const std::set<BufferAssignment::Slice> slices = assignment_.GetAllSlices(&instruction, index);
    if (slices.size() != 1) {
      return absl::InternalError(fmt::format("GPU executable: {} at {} has {} buffer slices, expected one",
                                             instruction.name(), ShapeIndexToString(index), slices.size()));
    }
    return *slices.begin();
  }

  // A dot of f32 (f64) matrices laid out for a GEMM gets its descriptor.
  absl::Status AttachGemm(const HloInstruction& instruction, Thunk& thunk) {
    if (instruction.opcode() != HloOpcode::kDot || instruction.operand_count() != 2) return absl::OkStatus();
    const PrimitiveType type = instruction.shape().element_type();
    if ((type != PrimitiveType::F32 && type != PrimitiveType::F64) ||
        instruction.operand(0)->shape().element_type() != type ||
        instruction.operand(1)->shape().element_type() != type) {
      return absl::OkStatus();
    }
    const std::optional<codegen::GemmPlan> plan = codegen::GemmPlanFor(instruction);
    if (!plan.has_value()) return absl::OkStatus();
    HMO_ASSIGN_OR_RETURN(thunk.gemm_lhs, UniqueSlice(*instruction.operand(0), {}));
    HMO_ASSIGN_OR_RETURN(thunk.gemm_rhs, UniqueSlice(*instruction.operand(1), {}));
    HMO_ASSIGN_OR_RETURN(thunk.gemm_out, UniqueSlice(instruction, {}));
    thunk.gemm = DenseGemmDescriptor(type == PrimitiveType::F32 ? GemmElementType::kF32 : GemmElementType::kF64,
                                     plan->batch, plan->m, plan->n, plan->k, plan->transpose_lhs,
                                     plan->transpose_rhs);
    return absl::OkStatus();
  }

  // Every slice of every array leaf of `instruction`'s value.
  std::vector<BufferAssignment::Slice> SlicesOf(const HloInstruction& instruction) const {
    std::vector<BufferAssignment::Slice> slices;
    ShapeUtil::ForEachSubshape(instruction.shape(), [&](const Shape& subshape, const ShapeIndex& index) {
      if (!subshape.IsArray()) return;
      for (const BufferAssignment::Slice& slice : assignment_.GetAllSlices(&instruction, index)) {
        slices.push_back(slice);
      }
    });
    return slices;
  }

  int64_t ColorOf(const BufferAssignment::Slice& slice) const {
    return assignment_.GetAllocation(slice.index).color();
  }

  // `to` at `to_index` gets the value of `from` at `from_index` (same
  // shape): one copy per array leaf whose slices differ. A copy between
  // memory spaces goes to the copy stream when `memory_space_copy`.
  absl::Status CopyValue(const HloInstruction& from, const ShapeIndex& from_index, const HloInstruction& to,
                         const ShapeIndex& to_index, const HloInstruction& cause, ThunkSequence& out,
                         bool memory_space_copy = false) {
    return codegen::ForEachLeafNeedingCopy(
        assignment_, from, from_index, to, to_index,
        [&](const ShapeIndex& src_index, const ShapeIndex& dst_index,
            int64_t bytes) -> absl::Status {
          HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice src, UniqueSlice(from, src_index));
          HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice dst, UniqueSlice(to, dst_index));
          Thunk thunk;
          thunk.kind = memory_space_copy && ColorOf(src) != ColorOf(dst) ? Thunk::Kind::kMemorySpaceCopy
                                                                          : Thunk::Kind::kCopy;
          thunk.instruction = &cause;
          thunk.source = src;
          thunk.destination = dst;
          thunk.bytes = bytes;
          thunk.reads = {src};
          thunk.writes = {dst};
          out.push_back(std::move(thunk));
          return absl::OkStatus();
        });
  }

  absl::Status EmitSequenceOf(const HloComputation& computation, ThunkSequence& out) {
    return EmitComputation(computation, out);
  }

  absl::Status EmitInstruction(const HloInstruction& instruction, ThunkSequence& out) {
    switch (instruction.opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kAfterAll:
        return absl::OkStatus();
      case HloOpcode::kConstant:
        if (instruction.shape().IsArray() && !assignment_.GetAllSlices(&instruction, {}).empty()) {
          constants_.push_back(&instruction);
        }
        return absl::OkStatus();
      case HloOpcode::kTuple:
        for (int64_t i = 0; i < instruction.operand_count(); ++i) {
          HMO_RETURN_IF_ERROR(CopyValue(*instruction.operand(i), {}, instruction, {i}, instruction, out));
        }
        return absl::OkStatus();
      case HloOpcode::kGetTupleElement:
        return CopyValue(*instruction.operand(0), {instruction.tuple_index()}, instruction, {}, instruction, out);
      case HloOpcode::kBitcast:
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kAddDependency:
        return CopyValue(*instruction.operand(0), {}, instruction, {}, instruction, out);
      case HloOpcode::kCopyStart:
        return CopyValue(*instruction.operand(0), {}, instruction, {0}, instruction, out, /*memory_space_copy=*/true);
      case HloOpcode::kCopyDone:
        return CopyValue(*instruction.operand(0), {0}, instruction, {}, instruction, out, /*memory_space_copy=*/true);
      case HloOpcode::kWhile: return EmitWhile(instruction, out);
      case HloOpcode::kConditional: return EmitConditional(instruction, out);
      case HloOpcode::kCall: {
        const HloComputation* callee = instruction.to_apply();
        for (int64_t i = 0; i < instruction.operand_count(); ++i) {
          HMO_RETURN_IF_ERROR(
              CopyValue(*instruction.operand(i), {}, *callee->parameter_instruction(i), {}, instruction, out));
        }
        HMO_RETURN_IF_ERROR(EmitSequenceOf(*callee, out));
        return CopyValue(*callee->root_instruction(), {}, instruction, {}, instruction, out);
      }
      case HloOpcode::kCustomCall:
        // An uninitialized buffer (host offloading): nothing to run.
        if (instruction.custom_call_target() == "AllocateBuffer" && instruction.operand_count() == 0) {
          return absl::OkStatus();
        }
        [[fallthrough]];
      case HloOpcode::kCopy:
        if (IsPlainMemorySpaceCopy(instruction)) {
          return CopyValue(*instruction.operand(0), {}, instruction, {}, instruction, out, /*memory_space_copy=*/true);
        }
        break;
      default:
        break;
    }
    if (IsCollectiveOpcode(instruction.opcode()) ||
        collectives::IsPlannedCollective(instruction.opcode()) ||
        instruction.opcode() == HloOpcode::kAllReduceDone ||
        instruction.opcode() == HloOpcode::kAllGatherDone ||
        instruction.opcode() == HloOpcode::kCollectivePermuteDone) {
      return EmitCollective(instruction, out);
    }
    if (!InstructionNeedsGpuKernel(instruction)) {
      if (instruction.shape().IsArray() && ShapeUtil::ElementsIn(instruction.shape()) == 0) return absl::OkStatus();
      return absl::UnimplementedError(fmt::format("GPU executable: {} instruction {} is not supported",
                                                  HloOpcodeString(instruction.opcode()), instruction.name()));
    }
    auto it = kernel_index_.find(&instruction);
    if (it == kernel_index_.end()) {
      return absl::InternalError("GPU executable: no kernel was generated for " + instruction.name());
    }
    // Scatter and sort start from copies of their operands (a kernel cannot
    // copy and then update without a grid-wide barrier).
    for (const OutputInitialization& init : kernels_.kernels[it->second].prologue_copies) {
      HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice src, UniqueSlice(*instruction.operand(init.operand_number), {}));
      HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice dst, UniqueSlice(instruction, init.output_index));
      if (src == dst) continue;
      Thunk copy;
      copy.kind = Thunk::Kind::kCopy;
      copy.instruction = &instruction;
      copy.source = src;
      copy.destination = dst;
      copy.bytes = ShapeUtil::ByteSizeOf(instruction.operand(init.operand_number)->shape());
      copy.reads = {src};
      copy.writes = {dst};
      out.push_back(std::move(copy));
    }
    Thunk thunk;
    thunk.kind = Thunk::Kind::kKernel;
    thunk.instruction = &instruction;
    thunk.kernel = it->second;
    HMO_RETURN_IF_ERROR(AttachGemm(instruction, thunk));
    thunk.writes = SlicesOf(instruction);
    for (const HloInstruction* operand : instruction.operands()) {
      for (const BufferAssignment::Slice& slice : SlicesOf(*operand)) thunk.reads.push_back(slice);
    }
    out.push_back(std::move(thunk));
    return absl::OkStatus();
  }

  // MoveToHost / MoveToDevice / annotate_device_placement, a tuple copy, or
  // an array copy that changes only the memory space: bytes, no kernel.
  static bool IsPlainMemorySpaceCopy(const HloInstruction& instruction) {
    if (instruction.opcode() == HloOpcode::kCustomCall) return !InstructionNeedsGpuKernel(instruction);
    if (!instruction.shape().IsArray()) return true;  // tuple copy: leaf by leaf
    const Shape& from = instruction.operand(0)->shape();
    const Shape& to = instruction.shape();
    if (from.memory_space() == to.memory_space()) return false;
    const std::vector<int64_t> default_order = [&] {
      std::vector<int64_t> order;
      for (int64_t d = to.rank() - 1; d >= 0; --d) order.push_back(d);
      return order;
    }();
    auto order = [&](const Shape& s) { return s.has_layout() ? s.layout().minor_to_major() : default_order; };
    return from.dimensions() == to.dimensions() && order(from) == order(to);
  }

  absl::Status EmitCollective(const HloInstruction& instruction, ThunkSequence& out) {
    switch (instruction.opcode()) {
      case HloOpcode::kAllReduceDone:
        return CopyValue(*instruction.operand(0), {}, instruction, {}, instruction, out);
      case HloOpcode::kAllGatherDone:
      case HloOpcode::kCollectivePermuteDone:
        return CopyValue(*instruction.operand(0), {1}, instruction, {}, instruction, out);
      case HloOpcode::kAllGatherStart:
      case HloOpcode::kCollectivePermuteStart: {
        // Their {0} is the operand.
        const bool tuple = ShapeUtil::GetSubshape(instruction.shape(), {0}).IsTuple();
        for (int64_t i = 0; i < instruction.operand_count(); ++i) {
          HMO_RETURN_IF_ERROR(CopyValue(*instruction.operand(i), {}, instruction,
                                        tuple ? ShapeIndex{0, i} : ShapeIndex{0}, instruction,
                                        out));
        }
        break;
      }
      default:
        break;
    }
    if (!collectives::IsPlannedCollective(instruction.opcode())) {
      return absl::UnimplementedError(
          fmt::format("GPU executable: {} instruction {} is not supported",
                      HloOpcodeString(instruction.opcode()), instruction.name()));
    }
    Thunk thunk;
    thunk.kind = Thunk::Kind::kCollective;
    thunk.instruction = &instruction;
    absl::StatusOr<collectives::CollectivePlan> plan =
        collectives::PlanCollective(instruction, grid_);
    if (!plan.ok()) {
      return absl::Status(plan.status().code(),
                          "GPU executable: " + std::string(plan.status().message()));
    }
    thunk.plan = std::make_shared<const collectives::CollectivePlan>(*std::move(plan));
    for (const HloInstruction* operand : instruction.operands()) {
      HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice slice, UniqueSlice(*operand, {}));
      thunk.sends.push_back(slice);
    }
    for (const ShapeIndex& index : collectives::CollectiveReceiveIndices(instruction)) {
      HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice slice, UniqueSlice(instruction, index));
      thunk.receives.push_back(slice);
    }
    absl::StatusOr<CollectiveOp> nccl = CollectiveOpFor(instruction, num_replicas_);
    if (nccl.ok()) {
      thunk.collective = *std::move(nccl);
    } else {
      thunk.no_nccl_operation = std::string(nccl.status().message());
    }
    if (!thunk.sends.empty()) thunk.source = thunk.sends.front();
    if (!thunk.receives.empty()) thunk.destination = thunk.receives.front();
    for (const ShapeIndex& index : collectives::CollectiveReceiveIndices(instruction)) {
      thunk.bytes += ShapeUtil::ByteSizeOf(ShapeUtil::GetSubshape(instruction.shape(), index));
    }
    thunk.reads = thunk.sends;
    thunk.writes = thunk.receives;
    out.push_back(std::move(thunk));
    has_collectives_ = true;
    return absl::OkStatus();
  }

  absl::Status EmitWhile(const HloInstruction& loop, ThunkSequence& out) {
    const HloComputation* condition = loop.while_condition();
    const HloComputation* body = loop.while_body();
    HMO_RETURN_IF_ERROR(CopyValue(*loop.operand(0), {}, loop, {}, loop, out));
    Thunk thunk;
    thunk.kind = Thunk::Kind::kWhile;
    thunk.instruction = &loop;
    thunk.condition = std::make_shared<ThunkSequence>();
    thunk.body = std::make_shared<ThunkSequence>();
    HMO_RETURN_IF_ERROR(CopyValue(loop, {}, *condition->parameter_instruction(0), {}, loop, *thunk.condition));
    HMO_RETURN_IF_ERROR(EmitSequenceOf(*condition, *thunk.condition));
    HMO_ASSIGN_OR_RETURN(thunk.predicate, UniqueSlice(*condition->root_instruction(), {}));
    thunk.predicate_is_pred = true;
    HMO_RETURN_IF_ERROR(CopyValue(loop, {}, *body->parameter_instruction(0), {}, loop, *thunk.body));
    HMO_RETURN_IF_ERROR(EmitSequenceOf(*body, *thunk.body));
    HMO_RETURN_IF_ERROR(CopyValue(*body->root_instruction(), {}, loop, {}, loop, *thunk.body));
    out.push_back(std::move(thunk));
    return absl::OkStatus();
  }

  absl::Status EmitConditional(const HloInstruction& conditional, ThunkSequence& out) {
    if (conditional.branch_count() == 0) {
      return absl::InvalidArgumentError("GPU executable: conditional " + conditional.name() + " has no branches");
    }
    const HloInstruction& selector = *conditional.operand(0);
    Thunk thunk;
    thunk.kind = Thunk::Kind::kConditional;
    thunk.instruction = &conditional;
    if (selector.shape().element_type() == PrimitiveType::PRED) {
      thunk.predicate_is_pred = true;
    } else if (selector.shape().element_type() == PrimitiveType::S32) {
      thunk.predicate_is_pred = false;
    } else {
      return absl::UnimplementedError("GPU executable: conditional " + conditional.name() +
                                      ": the branch index must be pred or s32");
    }
    HMO_ASSIGN_OR_RETURN(thunk.predicate, UniqueSlice(selector, {}));
    for (int64_t k = 0; k < conditional.branch_count(); ++k) {
      ThunkSequence branch_thunks;
      const HloComputation* branch = conditional.branch_computation(k);
      if (branch->num_parameters() > 0) {
        HMO_RETURN_IF_ERROR(CopyValue(*conditional.operand(k + 1), {}, *branch->parameter_instruction(0), {},
                                      conditional, branch_thunks));
      }
      HMO_RETURN_IF_ERROR(EmitSequenceOf(*branch, branch_thunks));
      HMO_RETURN_IF_ERROR(CopyValue(*branch->root_instruction(), {}, conditional, {}, conditional, branch_thunks));
      thunk.branches.push_back(std::move(branch_thunks));
    }
    out.push_back(std::move(thunk));
    return absl::OkStatus();
  }

  const BufferAssignment& assignment_;
  const GpuKernelModule& kernels_;
  absl::flat_hash_map<const HloInstruction*, int64_t> kernel_index_;
  std::vector<const HloInstruction*> constants_;
  bool has_collectives_ = false;
  int num_replicas_ = 1;
  DeviceGrid grid_;
};

std::string SliceString(const BufferAssignment::Slice& slice) {
  return fmt::format("[{}+{}]", slice.index, slice.offset);
}

}  // namespace

absl::StatusOr<ThunkPlan> BuildThunkPlan(const HloModule& module, const BufferAssignment& assignment,
                                         const GpuKernelModule& kernels, int num_replicas) {
  if (num_replicas < 1) {
    return absl::InvalidArgumentError("GPU executable: num_replicas must be at least 1, got " +
                                      std::to_string(num_replicas));
  }
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return absl::InvalidArgumentError("GPU executable: the module has no entry computation");
  const int64_t partitions = std::max<int64_t>(1, module.num_partitions());
  if (num_replicas % partitions != 0) {
    return absl::InvalidArgumentError(
        fmt::format("GPU executable: {} devices are not whole replicas of the module's "
                    "{} partitions",
                    num_replicas, partitions));
  }
  ThunkPlanBuilder builder(
      assignment, kernels, num_replicas,
      DeviceGrid{.replica_count = num_replicas / partitions, .partition_count = partitions});
  ThunkPlan plan;
  plan.num_replicas = num_replicas;
  HMO_RETURN_IF_ERROR(builder.EmitComputation(*entry, plan.entry));
  plan.constants = builder.TakeConstants();
  plan.has_collectives = builder.has_collectives();
  return plan;
}

std::string DescribeThunks(const ThunkSequence& sequence, int indent) {
  std::string out;
  const std::string pad(static_cast<size_t>(indent) * 2, ' ');
  for (const Thunk& thunk : sequence) {
    const std::string name = thunk.instruction != nullptr ? thunk.instruction->name() : "?";
    switch (thunk.kind) {
      case Thunk::Kind::kKernel:
        out += fmt::format("{}kernel {}{}\n", pad, name, thunk.gemm.has_value() ? " (gemm " + thunk.gemm->ToString() + ")" : "");
        break;
      case Thunk::Kind::kCopy:
      case Thunk::Kind::kMemorySpaceCopy:
        out += fmt::format("{}{} {} {} bytes {} -> {}\n", pad,
                           thunk.kind == Thunk::Kind::kCopy ? "copy" : "memory-space-copy", name, thunk.bytes,
                           SliceString(thunk.source), SliceString(thunk.destination));
        break;
      case Thunk::Kind::kConditional:
        out += fmt::format("{}conditional {} ({} branches)\n", pad, name, thunk.branches.size());
        for (size_t k = 0; k < thunk.branches.size(); ++k) {
          out += fmt::format("{}  branch {}:\n", pad, k);
          out += DescribeThunks(thunk.branches[k], indent + 2);
        }
        break;
      case Thunk::Kind::kCollective:
        out += fmt::format("{}collective {} {} bytes {} -> {}\n", pad, name, thunk.bytes, SliceString(thunk.source),
                           SliceString(thunk.destination));
        break;
      case Thunk::Kind::kWhile:
        out += fmt::format("{}while {}\n{}  condition:\n", pad, name, pad);
        out += DescribeThunks(*thunk.condition, indent + 2);
        out += fmt::format("{}  body:\n", pad);
        out += DescribeThunks(*thunk.body, indent + 2);
        break;
    }
  }
  return out;
}

}  // namespace hmo::gpu
