#include "hmo/codegen/fusion/loop_fuser.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hmo/base/status_macros.h"
#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/fusion_emitter.h"
#include "hmo/codegen/op_emitters.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo::codegen {
namespace {

constexpr std::string_view kFusionName = "fusion";
constexpr std::string_view kFusedComputationName = "fused_computation";

// Whether `producer` (an operand of `consumer`) should be fused into it; the
// conditions of cpu_instruction_fusion.h.
bool ShouldFuse(const HloInstruction& consumer, const HloInstruction& producer,
                const std::function<bool(const HloInstruction&)>& may_fuse) {
  if (producer.parent() != consumer.parent()) return false;
  if (may_fuse != nullptr && !may_fuse(producer)) return false;
  if (!IsLoopFusibleProducerKind(producer)) return false;
  if (producer.HasSideEffect()) return false;
  if (!producer.control_predecessors().empty() || !producer.control_successors().empty()) {
    return false;
  }
  // No two-instruction fusions of a constant and its user.
  if (producer.opcode() == HloOpcode::kConstant && consumer.opcode() != HloOpcode::kFusion) {
    return false;
  }
  const bool would_duplicate =
      producer.user_count() > 1 || producer.IsRoot() ||
      (producer.user_count() == 1 && producer.users().front() != &consumer);
  return !would_duplicate || !IsExpensiveForFusion(producer);
}

// Clones the instructions of `computation` (not its parameters) into
// `target` in post order. Parameter i of `computation` stands for
// `parameter_values[i]` of `target`. Returns the clone of the root.
HloInstruction* CloneBody(const HloComputation& computation,
                          const std::vector<HloInstruction*>& parameter_values,
                          HloComputation& target) {
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> clones;
  for (HloInstruction* instruction : computation.MakeInstructionPostOrder()) {
    if (instruction->opcode() == HloOpcode::kParameter) {
      clones[instruction] = parameter_values[instruction->parameter_number()];
      continue;
    }
    std::vector<HloInstruction*> operands;
    operands.reserve(instruction->operand_count());
    for (const HloInstruction* operand : instruction->operands())
      operands.push_back(clones.at(operand));
    clones[instruction] =
        target.AddInstruction(instruction->CloneWithNewOperands(instruction->shape(), operands));
  }
  return clones.at(computation.root_instruction());
}

// Clones `producer` into `target` (inlining its body when it is a fusion),
// reading each of its operands from `value_of`. Returns the clone computing
// the producer's value.
HloInstruction* CloneProducer(
    const HloInstruction& producer,
    const absl::flat_hash_map<const HloInstruction*, HloInstruction*>& value_of,
    HloComputation& target) {
  std::vector<HloInstruction*> operands;
  for (const HloInstruction* operand : producer.operands())
    operands.push_back(value_of.at(operand));
  if (producer.opcode() == HloOpcode::kFusion) {
    return CloneBody(*producer.fused_instructions_computation(), operands, target);
  }
  return target.AddInstruction(producer.CloneWithNewOperands(producer.shape(), operands));
}

// Fusing a producer that an earlier fused producer also used clones it into
// the body twice; instruction names must stay unique within a computation,
// so later copies get a ".N" suffix no other instruction of the body has.
void UniquifyNamesWithinBody(HloComputation& body) {
  absl::flat_hash_set<std::string> taken;
  for (const HloInstruction* instruction : body.instructions()) taken.insert(instruction->name());
  absl::flat_hash_set<std::string> seen;
  for (HloInstruction* instruction : body.instructions()) {
    if (seen.insert(instruction->name()).second) continue;
    std::string candidate;
    for (int suffix = 1;; ++suffix) {
      candidate = absl::StrCat(instruction->name(), ".", suffix);
      if (!taken.contains(candidate)) break;
    }
    taken.insert(candidate);
    seen.insert(candidate);
    instruction->SetAndSanitizeName(candidate);
  }
}

// The reduce a sibling reduction kernel computes: `instruction` itself (an
// array-shaped reduce) or the root of a reduction fusion of one such reduce;
// null for any other instruction, and for one with control edges.
const HloInstruction* SiblingReduce(const HloInstruction& instruction) {
  if (!instruction.control_predecessors().empty() || !instruction.control_successors().empty() ||
      instruction.IsRoot() || instruction.HasSideEffect()) {
    return nullptr;
  }
  const HloInstruction* reduce = &instruction;
  if (instruction.opcode() == HloOpcode::kFusion) {
    if (instruction.fusion_kind() != FusionKind::kInput ||
        !IsReductionFusionEmittable(instruction)) {
      return nullptr;
    }
    const std::vector<const HloInstruction*> reduces = FusedRootReduces(instruction);
    if (reduces.size() != 1) return nullptr;
    reduce = reduces[0];
  }
  if (reduce->opcode() != HloOpcode::kReduce || !reduce->shape().IsArray() ||
      reduce->to_apply() == nullptr) {
    return nullptr;
  }
  for (const HloInstruction* operand : instruction.operands()) {
    if (!operand->shape().IsArray()) return nullptr;
  }
  return reduce;
}

// Whether two sibling reduction kernels run in one set of loops of the same
// form: inputs of one set of dimensions reduced along the same ones, both
// column reductions or neither.
bool ShareReductionLoops(const HloInstruction& a, const HloInstruction& b) {
  const HloInstruction* ra = SiblingReduce(a);
  const HloInstruction* rb = SiblingReduce(b);
  return ra != nullptr && rb != nullptr &&
         ra->operand(0)->shape().dimensions() == rb->operand(0)->shape().dimensions() &&
         ra->dimensions() == rb->dimensions() &&
         ra->shape().dimensions() == rb->shape().dimensions() &&
         IsColumnReduction(*ra) == IsColumnReduction(*rb);
}

// Whether `to` is `from` or depends on it (through operands or control edges).
bool Reaches(const HloInstruction* from, const HloInstruction* to) {
  std::vector<const HloInstruction*> pending = {from};
  absl::flat_hash_set<const HloInstruction*> seen = {from};
  while (!pending.empty()) {
    const HloInstruction* current = pending.back();
    pending.pop_back();
    if (current == to) return true;
    for (const std::vector<HloInstruction*>* next :
         {&current->users(), &current->control_successors()}) {
      for (const HloInstruction* user : *next) {
        if (seen.insert(user).second) pending.push_back(user);
      }
    }
  }
  return false;
}

}  // namespace

class LoopFuser::Impl {
 public:
  Impl(HloModule& module, ReductionHosts hosts, std::function<bool(const HloInstruction&)> may_fuse)
      : module_(module), hosts_(hosts), may_fuse_(std::move(may_fuse)) {}

  absl::StatusOr<bool> FuseIntoConsumer(HloInstruction* consumer) {
    if (!CanHostLoopFusion(*consumer, hosts_)) return false;
    bool changed = false;
    while (true) {
      HloInstruction* producer = nullptr;
      for (HloInstruction* operand : consumer->unique_operands()) {
        if (ShouldFuse(*consumer, *operand, may_fuse_)) {
          producer = operand;
          break;
        }
      }
      if (producer == nullptr) return changed;
      if (consumer->opcode() != HloOpcode::kFusion) {
        HMO_ASSIGN_OR_RETURN(consumer, WrapInFusion(consumer));
      }
      HMO_RETURN_IF_ERROR(FuseProducer(consumer, producer));
      changed = true;
    }
  }

  absl::StatusOr<int64_t> FuseSiblingReductions(HloComputation* computation) {
    if (module_.has_schedule() && module_.schedule().is_computation_scheduled(computation)) {
      return 0;
    }
    std::vector<HloInstruction*> candidates;
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (SiblingReduce(*instruction) != nullptr &&
          (may_fuse_ == nullptr || may_fuse_(*instruction))) {
        candidates.push_back(instruction);
      }
    }
    absl::flat_hash_set<const HloInstruction*> merged;
    int64_t fusions = 0;
    for (size_t a = 0; a < candidates.size(); ++a) {
      if (merged.contains(candidates[a])) continue;
      std::vector<HloInstruction*> group = {candidates[a]};
      absl::flat_hash_set<const HloInstruction*> read;
      auto note_operands = [&](const HloInstruction* member) {
        for (const HloInstruction* operand : member->operands()) {
          if (!ShapeUtil::IsEffectiveScalar(operand->shape())) read.insert(operand);
        }
      };
      note_operands(candidates[a]);
      for (size_t b = a + 1; b < candidates.size(); ++b) {
        HloInstruction* candidate = candidates[b];
        if (merged.contains(candidate) || !ShareReductionLoops(*group[0], *candidate)) continue;
        bool shares = false;
        for (const HloInstruction* operand : candidate->operands())
          shares |= read.contains(operand);
        // Neither may depend on the other: one fusion computes both.
        bool independent = shares;
        for (const HloInstruction* member : group) {
          if (!independent) break;
          independent = !Reaches(member, candidate) && !Reaches(candidate, member);
        }
        if (!independent) continue;
        group.push_back(candidate);
        note_operands(candidate);
      }
      if (group.size() < 2) continue;
      merged.insert(group.begin(), group.end());
      HMO_RETURN_IF_ERROR(MergeSiblings(computation, group));
      ++fusions;
    }
    return fusions;
  }

  absl::StatusOr<bool> FuseProductIntoEpilogue(HloInstruction* consumer) {
    const bool loop_fusion = consumer->opcode() == HloOpcode::kFusion &&
                             consumer->fusion_kind() == FusionKind::kLoop &&
                             IsLoopFusionEmittable(*consumer) && consumer->shape().IsArray();
    const bool elementwise = consumer->opcode() != HloOpcode::kFusion &&
                             consumer->shape().IsArray() && consumer->IsElementwise() &&
                             ElementalIrEmitter::IsElementalOpcode(consumer->opcode());
    if (!loop_fusion && !elementwise) return false;
    for (HloInstruction* product : consumer->unique_operands()) {
      if (!IsEpilogueOf(*consumer, *product)) continue;
      if (!loop_fusion) {
        HMO_ASSIGN_OR_RETURN(consumer, WrapInFusion(consumer));
      }
      HMO_RETURN_IF_ERROR(FuseProducer(consumer, product));
      consumer->set_fusion_kind(FusionKind::kOutput);
      if (!IsOutputFusionEmittable(*consumer)) {
        return absl::InternalError("cpu-fusion: " + consumer->name() +
                                   " is no output fusion the backend emits");
      }
      return true;
    }
    return false;
  }

 private:
  // Replaces the sibling reduction kernels `group` by one multi-output
  // reduction fusion computing each (output i: group[i]'s value), read
  // through get-tuple-elements.
  absl::Status MergeSiblings(HloComputation* computation,
                             const std::vector<HloInstruction*>& group) {
    // Scalar constants (a plain reduce's init) go inside, as cpu-fusion
    // fuses them into existing fusions.
    auto body = std::make_unique<HloComputation>(module_.GetUniqueName(kFusedComputationName));
    absl::flat_hash_map<const HloInstruction*, HloInstruction*> value_of;
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* member : group) {
      for (HloInstruction* operand : member->operands()) {
        if (value_of.contains(operand) ||
            std::find(operands.begin(), operands.end(), operand) != operands.end()) {
          continue;
        }
        if (operand->opcode() == HloOpcode::kConstant &&
            ShapeUtil::IsEffectiveScalar(operand->shape())) {
          value_of[operand] =
              body->AddInstruction(operand->CloneWithNewOperands(operand->shape(), {}));
          continue;
        }
        operands.push_back(operand);
      }
    }
    for (int64_t i = 0; i < static_cast<int64_t>(operands.size()); ++i) {
      value_of[operands[i]] = body->AddParameter(
          HloInstruction::CreateParameter(i, operands[i]->shape(), absl::StrCat("param_", i)));
    }
    std::vector<HloInstruction*> outputs;
    std::vector<Shape> shapes;
    for (const HloInstruction* member : group) {
      outputs.push_back(CloneProducer(*member, value_of, *body));
      shapes.push_back(member->shape());
    }
    body->set_root_instruction(body->AddInstruction(HloInstruction::CreateTuple(outputs)));
    UniquifyNamesWithinBody(*body);
    HloComputation* fused = module_.AddComputation(std::move(body), /*is_entry=*/false,
                                                   /*uniquify_names=*/false);
    std::unique_ptr<HloInstruction> fusion = HloInstruction::CreateFusion(
        ShapeUtil::MakeTupleShape(shapes), FusionKind::kInput, operands, fused);
    fusion->SetAndSanitizeName(kFusionName);
    HloInstruction* added = computation->AddInstruction(std::move(fusion));
    if (!IsReductionFusionEmittable(*added)) {
      return absl::InternalError("cpu-fusion: " + added->name() +
                                 " is no multi-output reduction fusion the backend emits");
    }
    for (int64_t i = 0; i < static_cast<int64_t>(group.size()); ++i) {
      HloInstruction* output = computation->AddInstruction(
          HloInstruction::CreateGetTupleElement(group[i]->shape(), added, i));
      HMO_RETURN_IF_ERROR(group[i]->ReplaceAllUsesWith(output));
      HMO_RETURN_IF_ERROR(module_.RemoveDeadInstruction(group[i]));
    }
    return absl::OkStatus();
  }

  // Whether `product` (an operand of `consumer`, a kLoop fusion or an
  // elementwise instruction) can become the dot or convolution of an output
  // fusion with `consumer` as its epilogue (IsOutputFusionEmittable): one
  // the runtime computes, used by `consumer` alone, which reads it at its
  // own output index only.
  bool IsEpilogueOf(const HloInstruction& consumer, const HloInstruction& product) const {
    if (!IsOutputFusionProduct(product) || product.parent() != consumer.parent() ||
        (may_fuse_ != nullptr && !may_fuse_(product)) || product.HasSideEffect() ||
        product.IsRoot() || product.user_count() != 1 || !product.control_predecessors().empty() ||
        !product.control_successors().empty() ||
        consumer.shape().dimensions() != product.shape().dimensions()) {
      return false;
    }
    if (consumer.opcode() == HloOpcode::kFusion) {
      return ReachesRootElementwise(*consumer.fused_parameter(consumer.operand_index(&product)));
    }
    for (int64_t i = 0; i < consumer.operand_count(); ++i) {
      if (consumer.operand(i) == &product && !consumer.IsElementwiseOnOperand(i)) return false;
    }
    return true;
  }

  // Replaces `instruction` with a fusion computing only it (kInput for a
  // reduce, kLoop otherwise); operands are its unique operands in order.
  absl::StatusOr<HloInstruction*> WrapInFusion(HloInstruction* instruction) {
    HloComputation* parent = instruction->parent();
    std::vector<HloInstruction*> operands = instruction->unique_operands();
    auto body = std::make_unique<HloComputation>(module_.GetUniqueName(kFusedComputationName));
    absl::flat_hash_map<const HloInstruction*, HloInstruction*> value_of;
    for (int64_t i = 0; i < static_cast<int64_t>(operands.size()); ++i) {
      value_of[operands[i]] = body->AddParameter(
          HloInstruction::CreateParameter(i, operands[i]->shape(), absl::StrCat("param_", i)));
    }
    body->set_root_instruction(CloneProducer(*instruction, value_of, *body));
    HloComputation* fused = module_.AddComputation(std::move(body), /*is_entry=*/false,
                                                   /*uniquify_names=*/false);
    const FusionKind kind =
        IsReductionHost(*instruction, hosts_) ? FusionKind::kInput : FusionKind::kLoop;
    std::unique_ptr<HloInstruction> fusion =
        HloInstruction::CreateFusion(instruction->shape(), kind, operands, fused);
    fusion->SetAndSanitizeName(kFusionName);
    HMO_ASSIGN_OR_RETURN(HloInstruction * added,
                         parent->ReplaceWithNewInstructionInPlace(instruction, std::move(fusion)));
    if (module_.has_schedule() && module_.schedule().is_computation_scheduled(parent)) {
      module_.schedule().GetOrCreateSequence(parent).replace_instruction(instruction, added);
    }
    return added;
  }

  // Rebuilds `fusion`'s computation with `producer` (one of its operands)
  // computed inside, and rewires the fusion's operands accordingly. The
  // fusion instruction itself (name, position, users) is kept.
  absl::Status FuseProducer(HloInstruction* fusion, HloInstruction* producer) {
    HloComputation* old_body = fusion->fused_instructions_computation();
    std::vector<HloInstruction*> operands;
    for (HloInstruction* operand : fusion->operands()) {
      if (operand != producer) operands.push_back(operand);
    }
    for (HloInstruction* operand : producer->unique_operands()) {
      if (std::find(operands.begin(), operands.end(), operand) == operands.end()) {
        operands.push_back(operand);
      }
    }

    auto body = std::make_unique<HloComputation>(old_body->name());
    absl::flat_hash_map<const HloInstruction*, HloInstruction*> value_of;
    for (int64_t i = 0; i < static_cast<int64_t>(operands.size()); ++i) {
      value_of[operands[i]] = body->AddParameter(
          HloInstruction::CreateParameter(i, operands[i]->shape(), absl::StrCat("param_", i)));
    }
    HloInstruction* producer_value = CloneProducer(*producer, value_of, *body);
    std::vector<HloInstruction*> old_parameter_values;
    for (HloInstruction* operand : fusion->operands()) {
      old_parameter_values.push_back(operand == producer ? producer_value : value_of.at(operand));
    }
    body->set_root_instruction(CloneBody(*old_body, old_parameter_values, *body));
    UniquifyNamesWithinBody(*body);

    // Swap bodies: the old one must lose its caller before it can go, and
    // the new one takes its name once it is gone.
    fusion->set_called_computations({});
    HMO_RETURN_IF_ERROR(module_.RemoveComputation(old_body));
    HloComputation* new_body =
        module_.AddComputation(std::move(body), /*is_entry=*/false, /*uniquify_names=*/false);
    fusion->set_called_computations({new_body});
    fusion->DetachFromOperands();
    for (HloInstruction* operand : operands) fusion->AppendOperand(operand);

    if (producer->IsDead()) return module_.RemoveDeadInstruction(producer);
    return absl::OkStatus();
  }

  HloModule& module_;
  const ReductionHosts hosts_;
  const std::function<bool(const HloInstruction&)> may_fuse_;
};

LoopFuser::LoopFuser(HloModule& module, ReductionHosts hosts,
                     std::function<bool(const HloInstruction& producer)> may_fuse)
    : impl_(std::make_unique<Impl>(module, hosts, std::move(may_fuse))) {}

LoopFuser::~LoopFuser() = default;

absl::StatusOr<bool> LoopFuser::FuseIntoConsumer(HloInstruction* consumer) {
  return impl_->FuseIntoConsumer(consumer);
}

absl::StatusOr<int64_t> LoopFuser::FuseSiblingReductions(HloComputation* computation) {
  return impl_->FuseSiblingReductions(computation);
}

absl::StatusOr<bool> LoopFuser::FuseProductIntoEpilogue(HloInstruction* consumer) {
  return impl_->FuseProductIntoEpilogue(consumer);
}

}  // namespace hmo::codegen
