#include "loop_state_offload.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/layout.h"
#include "hmo/ir/shape.h"
#include "peak_crossing.h"
#include "value_buffers.h"

namespace hmo {
namespace {

using InstructionMap = absl::flat_hash_map<const HloInstruction*, HloInstruction*>;

Shape InMemorySpace(Shape shape, int64_t memory_space) {
  shape.mutable_layout()->set_memory_space(memory_space);
  return shape;
}

// The get-tuple-elements reading element `index` of `tuple`.
std::vector<HloInstruction*> ElementReads(const HloInstruction& tuple, int64_t index) {
  std::vector<HloInstruction*> reads;
  for (HloInstruction* user : tuple.users()) {
    if (user->opcode() == HloOpcode::kGetTupleElement && user->tuple_index() == index) {
      reads.push_back(user);
    }
  }
  return reads;
}

// A scalar computed from parameters and constants only (a start index),
// which can be recomputed outside its fusion.
bool IsScalarExpression(const HloInstruction& instruction, int depth = 0) {
  if (depth > 16 || !instruction.shape().IsArray() || instruction.shape().rank() != 0 ||
      !instruction.called_computations().empty()) {
    return false;
  }
  return absl::c_all_of(instruction.operands(), [&](const HloInstruction* operand) {
    return IsScalarExpression(*operand, depth + 1);
  });
}

bool StartIndicesAreScalarExpressions(const HloInstruction& slice, int64_t first) {
  for (int64_t i = first; i < slice.operand_count(); ++i) {
    if (!IsScalarExpression(*slice.operand(i))) return false;
  }
  return true;
}

// The only operand position of `fusion` holding `value`, or -1.
int64_t OnlyOperandIndex(const HloInstruction& fusion, const HloInstruction& value) {
  int64_t index = -1;
  for (int64_t i = 0; i < fusion.operand_count(); ++i) {
    if (fusion.operand(i) != &value) continue;
    if (index >= 0) return -1;
    index = i;
  }
  return index;
}

// The dynamic-update-slice a loop fusion computes as its result, writing
// `element` (read nowhere else in it) in place.
const HloInstruction* FusedSliceWrite(const HloInstruction& fusion, const HloInstruction& element) {
  if (fusion.opcode() != HloOpcode::kFusion || fusion.fusion_kind() != FusionKind::kLoop) {
    return nullptr;
  }
  const int64_t index = OnlyOperandIndex(fusion, element);
  if (index < 0) return nullptr;
  const HloComputation* fused = fusion.fused_instructions_computation();
  const HloInstruction* root = fused->root_instruction();
  const HloInstruction* parameter = fused->parameter_instruction(index);
  if (root->opcode() != HloOpcode::kDynamicUpdateSlice || root->operand(0) != parameter ||
      parameter->users().size() != 1 || !StartIndicesAreScalarExpressions(*root, 2)) {
    return nullptr;
  }
  return root;
}

// The dynamic-slices through which a loop fusion reads `element`: every
// use of its parameter, or nullopt.
std::optional<std::vector<const HloInstruction*>> FusedSliceReads(const HloInstruction& fusion,
                                                                  const HloInstruction& element) {
  if (fusion.opcode() != HloOpcode::kFusion || fusion.fusion_kind() != FusionKind::kLoop) {
    return std::nullopt;
  }
  const int64_t index = OnlyOperandIndex(fusion, element);
  if (index < 0) return std::nullopt;
  const HloInstruction* parameter =
      fusion.fused_instructions_computation()->parameter_instruction(index);
  std::vector<const HloInstruction*> reads;
  for (const HloInstruction* user : parameter->users()) {
    if (user->opcode() != HloOpcode::kDynamicSlice || user->operand(0) != parameter ||
        OnlyOperandIndex(*user, *parameter) != 0 || !StartIndicesAreScalarExpressions(*user, 1)) {
      return std::nullopt;
    }
    reads.push_back(user);
  }
  return reads;
}

// Element `index` of `loop`'s state: a device array that is not an argument
// or constant, set by a tuple, which the condition does not read.
bool IsMovableElement(const HloInstruction& loop, int64_t index) {
  const Shape& shape = loop.shape().tuple_shapes(index);
  if (!shape.IsArray() || !shape.has_layout() || shape.memory_space() == Layout::kHostMemorySpace) {
    return false;
  }
  const HloInstruction* init = loop.operand(0);
  if (init->opcode() != HloOpcode::kTuple || init->users().size() != 1) return false;
  const HloOpcode source = init->operand(index)->opcode();
  if (source == HloOpcode::kParameter || source == HloOpcode::kConstant) return false;
  return ElementReads(*loop.while_condition()->parameter_instruction(0), index).empty();
}

// The fusion writing element `index` of `loop` a slice per iteration, or
// null.
const HloInstruction* SliceWriter(const HloInstruction& loop, int64_t index) {
  if (!IsMovableElement(loop, index)) return nullptr;
  const HloComputation* body = loop.while_body();
  const HloInstruction* root = body->root_instruction();
  if (root->opcode() != HloOpcode::kTuple) return nullptr;
  const HloInstruction* writer = root->operand(index);
  const std::vector<HloInstruction*> reads = ElementReads(*body->parameter_instruction(0), index);
  if (reads.size() != 1 || reads[0]->users().size() != 1 || reads[0]->users()[0] != writer ||
      writer->users().size() != 1 || OnlyOperandIndex(*root, *writer) != index ||
      FusedSliceWrite(*writer, *reads[0]) == nullptr) {
    return nullptr;
  }
  return writer;
}

// Whether `loop`'s body passes element `index` on unchanged and reads it
// only through dynamic-slices.
bool IsSliceRead(const HloInstruction& loop, int64_t index) {
  if (!IsMovableElement(loop, index)) return false;
  const HloComputation* body = loop.while_body();
  const HloInstruction* root = body->root_instruction();
  if (root->opcode() != HloOpcode::kTuple) return false;
  const HloInstruction* passed = root->operand(index);
  if (passed->opcode() != HloOpcode::kGetTupleElement ||
      passed->operand(0) != body->parameter_instruction(0) || passed->tuple_index() != index) {
    return false;
  }
  for (const HloInstruction* read : ElementReads(*body->parameter_instruction(0), index)) {
    for (const HloInstruction* user : read->users()) {
      if (user == root) {
        if (OnlyOperandIndex(*root, *read) != index) return false;
        continue;
      }
      const bool sliced = user->opcode() == HloOpcode::kDynamicSlice
                              ? user->operand(0) == read && OnlyOperandIndex(*user, *read) == 0
                              : FusedSliceReads(*user, *read).has_value();
      if (!sliced) return false;
    }
  }
  return true;
}

// Rewrites on one scheduled computation: new instructions go where the
// instruction they replace was.
class ScheduledRewrite {
 public:
  ScheduledRewrite(HloModule& module, HloComputation& computation)
      : module_(module),
        computation_(computation),
        sequence_(module.schedule().GetOrCreateSequence(&computation)) {}

  HloComputation& computation() { return computation_; }

  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction, const std::string& name = "") {
    HloInstruction* added = computation_.AddInstruction(std::move(instruction), name);
    pending_.push_back(added);
    return added;
  }

  // Places what was added since the last placement right before `at`.
  void PlaceBefore(const HloInstruction* at) {
    const std::vector<HloInstruction*>& order = sequence_.instructions();
    const int64_t position = std::find(order.begin(), order.end(), at) - order.begin();
    for (size_t i = 0; i < pending_.size(); ++i) {
      sequence_.insert_instruction(pending_[i], position + static_cast<int64_t>(i));
    }
    pending_.clear();
  }

  // Places what was added right after `at`.
  void PlaceAfter(const HloInstruction* at) {
    const std::vector<HloInstruction*>& order = sequence_.instructions();
    const int64_t position = std::find(order.begin(), order.end(), at) - order.begin() + 1;
    for (size_t i = 0; i < pending_.size(); ++i) {
      sequence_.insert_instruction(pending_[i], position + static_cast<int64_t>(i));
    }
    pending_.clear();
  }

  absl::Status Remove(HloInstruction* instruction) {
    sequence_.remove_instruction(instruction);
    return computation_.RemoveInstruction(instruction);
  }

  // `expression` of `fusion`'s computation (a scalar of parameters and
  // constants) computed here from the fusion's operands.
  HloInstruction* CloneScalar(const HloInstruction& expression, HloInstruction& fusion,
                              InstructionMap& done) {
    if (expression.opcode() == HloOpcode::kParameter) {
      return fusion.mutable_operand(expression.parameter_number());
    }
    if (auto it = done.find(&expression); it != done.end()) return it->second;
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : expression.operands()) {
      operands.push_back(CloneScalar(*operand, fusion, done));
    }
    HloInstruction* clone = Add(expression.CloneWithNewOperands(expression.shape(), operands));
    done[&expression] = clone;
    return clone;
  }

  std::vector<HloInstruction*> CloneStartIndices(const HloInstruction& slice, int64_t first,
                                                 HloInstruction& fusion) {
    InstructionMap done;
    std::vector<HloInstruction*> indices;
    for (int64_t i = first; i < slice.operand_count(); ++i) {
      indices.push_back(CloneScalar(*slice.operand(i), fusion, done));
    }
    return indices;
  }

  // A fusion computing `root` of `fusion`'s computation, where each of
  // `leaves` becomes a parameter fed by its mapped instruction; the
  // parameters it still needs are fed as before.
  absl::StatusOr<HloInstruction*> Refuse(HloInstruction& fusion, const HloInstruction& root,
                                         const InstructionMap& leaves) {
    const HloComputation& fused = *fusion.fused_instructions_computation();
    auto computation = std::make_unique<HloComputation>(fused.name());
    std::vector<HloInstruction*> operands;
    absl::flat_hash_map<HloInstruction*, HloInstruction*> parameter_for;
    InstructionMap copy_of;
    const auto parameter = [&](HloInstruction* source, const HloInstruction& original) {
      auto [it, inserted] = parameter_for.try_emplace(source, nullptr);
      if (inserted) {
        const int64_t number = static_cast<int64_t>(operands.size());
        it->second = computation->AddParameter(HloInstruction::CreateParameter(
            number, original.shape(), absl::StrCat(original.name(), ".sliced")));
        operands.push_back(source);
      }
      return it->second;
    };
    // Post order from the root, stopping at leaves and parameters.
    std::vector<std::pair<const HloInstruction*, bool>> stack = {{&root, false}};
    while (!stack.empty()) {
      auto [instruction, expanded] = stack.back();
      stack.pop_back();
      if (copy_of.contains(instruction)) continue;
      if (auto leaf = leaves.find(instruction); leaf != leaves.end()) {
        copy_of[instruction] = parameter(leaf->second, *instruction);
        continue;
      }
      if (instruction->opcode() == HloOpcode::kParameter) {
        copy_of[instruction] =
            parameter(fusion.mutable_operand(instruction->parameter_number()), *instruction);
        continue;
      }
      if (!expanded) {
        stack.push_back({instruction, true});
        for (const HloInstruction* operand : instruction->operands()) {
          if (!copy_of.contains(operand)) stack.push_back({operand, false});
        }
        continue;
      }
      // A reduction's computation is shared; a nested fusion's would need
      // a copy of its own.
      if (instruction->opcode() == HloOpcode::kFusion) {
        return absl::UnimplementedError(
            absl::StrCat(fusion.name(), " holds the nested fusion ", instruction->name()));
      }
      std::vector<HloInstruction*> new_operands;
      for (const HloInstruction* operand : instruction->operands()) {
        new_operands.push_back(copy_of.at(operand));
      }
      copy_of[instruction] = computation->AddInstruction(
          instruction->CloneWithNewOperands(instruction->shape(), new_operands));
    }
    computation->set_root_instruction(copy_of.at(&root));
    HloComputation* added = module_.AddEmbeddedComputation(std::move(computation));
    return Add(HloInstruction::CreateFusion(root.shape(), fusion.fusion_kind(), operands, added),
               fusion.name());
  }

 private:
  HloModule& module_;
  HloComputation& computation_;
  HloInstructionSequence& sequence_;
  std::vector<HloInstruction*> pending_;
};

// Gives element `index` of `loop`'s state memory space S(5) everywhere it is
// carried: the initial tuple, the loop, its computations' parameters, the
// body's result and every get-tuple-element of it.
void MoveElementToHost(HloInstruction& loop, int64_t index) {
  const Shape host = InMemorySpace(loop.shape().tuple_shapes(index), Layout::kHostMemorySpace);
  *loop.mutable_shape()->mutable_tuple_shapes(index) = host;
  *loop.mutable_operand(0)->mutable_shape()->mutable_tuple_shapes(index) = host;
  for (HloComputation* computation : {loop.while_body(), loop.while_condition()}) {
    HloInstruction* parameter = computation->parameter_instruction(0);
    *parameter->mutable_shape()->mutable_tuple_shapes(index) = host;
    for (HloInstruction* read : ElementReads(*parameter, index)) *read->mutable_shape() = host;
  }
  *loop.while_body()->root_instruction()->mutable_shape()->mutable_tuple_shapes(index) = host;
  for (HloInstruction* read : ElementReads(loop, index)) *read->mutable_shape() = host;
}

// In the writing loop's body: the slice is computed by the fusion's other
// part, copied to the host and written into the host stack.
absl::Status WriteSlicesToHost(HloModule& module, HloInstruction& loop, int64_t index) {
  HloComputation& body = *loop.while_body();
  ScheduledRewrite rewrite(module, body);
  HloInstruction* writer = body.root_instruction()->mutable_operand(index);
  HloInstruction* stack = ElementReads(*body.parameter_instruction(0), index).at(0);
  const HloInstruction* update = FusedSliceWrite(*writer, *stack);
  if (update == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(writer->name(), " no longer writes a slice of ", stack->name()));
  }
  const std::vector<HloInstruction*> indices = rewrite.CloneStartIndices(*update, 2, *writer);
  HMO_ASSIGN_OR_RETURN(HloInstruction * slice, rewrite.Refuse(*writer, *update->operand(1), {}));
  HloInstruction* to_host = rewrite.Add(
      HloInstruction::CreateUnary(InMemorySpace(slice->shape(), Layout::kHostMemorySpace),
                                  HloOpcode::kCopy, slice),
      absl::StrCat(slice->name(), ".to_host"));
  HloInstruction* written = rewrite.Add(
      HloInstruction::CreateDynamicUpdateSlice(stack->shape(), stack, to_host, indices));
  rewrite.PlaceBefore(writer);
  HMO_RETURN_IF_ERROR(writer->ReplaceAllUsesWithDifferentShape(written));
  return rewrite.Remove(writer);
}

// In the reading loop's body: each slice is read from the host stack and
// copied to the device for what reads it.
absl::Status ReadSlicesFromHost(HloModule& module, HloInstruction& loop, int64_t index) {
  HloComputation& body = *loop.while_body();
  ScheduledRewrite rewrite(module, body);
  for (HloInstruction* stack : ElementReads(*body.parameter_instruction(0), index)) {
    const std::vector<HloInstruction*> readers = stack->users();
    for (HloInstruction* reader : readers) {
      if (reader == body.root_instruction()) continue;
      const auto read_slice = [&](const HloInstruction& slice,
                                  std::vector<HloInstruction*> indices) {
        HloInstruction* on_host = rewrite.Add(HloInstruction::CreateDynamicSlice(
            InMemorySpace(slice.shape(), Layout::kHostMemorySpace), stack, indices,
            slice.dynamic_slice_sizes()));
        return rewrite.Add(HloInstruction::CreateUnary(slice.shape(), HloOpcode::kCopy, on_host),
                           absl::StrCat(stack->name(), ".slice_to_device"));
      };
      HloInstruction* replacement = nullptr;
      if (reader->opcode() == HloOpcode::kDynamicSlice) {
        std::vector<HloInstruction*> indices(reader->operands().begin() + 1,
                                             reader->operands().end());
        replacement = read_slice(*reader, indices);
      } else {
        const std::optional<std::vector<const HloInstruction*>> slices =
            FusedSliceReads(*reader, *stack);
        if (!slices.has_value()) {
          return absl::FailedPreconditionError(
              absl::StrCat(reader->name(), " no longer reads slices of ", stack->name()));
        }
        InstructionMap leaves;
        for (const HloInstruction* slice : *slices) {
          leaves[slice] = read_slice(*slice, rewrite.CloneStartIndices(*slice, 1, *reader));
        }
        HMO_ASSIGN_OR_RETURN(
            replacement,
            rewrite.Refuse(*reader, *reader->fused_instructions_computation()->root_instruction(),
                           leaves));
      }
      rewrite.PlaceBefore(reader);
      HMO_RETURN_IF_ERROR(reader->ReplaceAllUsesWith(replacement));
      HMO_RETURN_IF_ERROR(rewrite.Remove(reader));
    }
  }
  return absl::OkStatus();
}

// Element `index` of `loop`'s initial tuple, copied to the host right after
// it is computed.
absl::Status CopyInitialValueToHost(ScheduledRewrite& caller, HloInstruction& loop, int64_t index) {
  HloInstruction* init = loop.mutable_operand(0);
  HloInstruction* value = init->mutable_operand(index);
  HloInstruction* to_host = caller.Add(
      HloInstruction::CreateUnary(InMemorySpace(value->shape(), Layout::kHostMemorySpace),
                                  HloOpcode::kCopy, value),
      absl::StrCat(value->name(), ".to_host"));
  caller.PlaceAfter(value);
  // Only the tuple's operand changes; the value may have other readers.
  return init->ReplaceOperandWithDifferentShape(index, to_host);
}

// The users of element `index` of `loop`'s result read a copy back on the
// device, made before the first of them.
absl::Status CopyResultToDevice(ScheduledRewrite& caller, HloInstruction& loop, int64_t index) {
  for (HloInstruction* read : ElementReads(loop, index)) {
    const std::vector<HloInstruction*> users = read->users();
    if (users.empty()) continue;
    HloInstruction* to_device = caller.Add(
        HloInstruction::CreateUnary(InMemorySpace(read->shape(), 0), HloOpcode::kCopy, read),
        absl::StrCat(read->name(), ".to_device"));
    const std::vector<HloInstruction*>& order =
        caller.computation().parent()->schedule().sequence(&caller.computation()).instructions();
    const HloInstruction* first = *std::min_element(
        users.begin(), users.end(), [&](const HloInstruction* a, const HloInstruction* b) {
          return std::find(order.begin(), order.end(), a) <
                 std::find(order.begin(), order.end(), b);
        });
    caller.PlaceBefore(first);
    for (HloInstruction* user : users) {
      HMO_RETURN_IF_ERROR(read->ReplaceUseWith(user, to_device));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool IsSlicedLoopState(const HloInstruction& loop, int64_t index) {
  return loop.opcode() == HloOpcode::kWhile && loop.shape().IsTuple() &&
         index < loop.shape().tuple_shapes_size() &&
         (IsSliceRead(loop, index) || SliceWriter(loop, index) != nullptr);
}

int64_t LoopStateOffload::bytes() const {
  int64_t total = 0;
  for (const Stack& stack : stacks) total += stack.bytes;
  return total;
}

std::string LoopStateOffload::ToString() const {
  if (stacks.size() > 1) {
    return absl::StrCat(stacks.size(), " stacks of ",
                        stacks[0].reader.empty() ? stacks[0].writer : stacks[0].reader,
                        " to host by slices");
  }
  const Stack& stack = stacks.at(0);
  if (stack.writer.empty()) {
    return absl::StrCat(stack.reader, "{", stack.reader_index, "} to host by slices");
  }
  if (stack.reader.empty()) {
    return absl::StrCat(stack.writer, "{", stack.writer_index, "} to host by slices");
  }
  return absl::StrCat(stack.reader, "{", stack.reader_index, "} to host by slices (written by ",
                      stack.writer, "{", stack.writer_index, "})");
}

std::vector<LoopStateOffload> FindLoopStateOffloads(const HloModule& module,
                                                    const HloComputation& computation) {
  std::vector<LoopStateOffload> offloads;
  if (!module.has_schedule() || !module.schedule().is_computation_scheduled(&computation)) {
    return offloads;
  }
  std::vector<LoopStateOffload::Stack> stacks;
  absl::flat_hash_set<std::pair<const HloInstruction*, int64_t>> paired_writers;
  for (const HloInstruction* loop : computation.instructions()) {
    if (loop->opcode() != HloOpcode::kWhile || !loop->shape().IsTuple()) continue;
    for (int64_t index = 0; index < loop->shape().tuple_shapes_size(); ++index) {
      if (!IsSliceRead(*loop, index)) continue;
      LoopStateOffload::Stack stack{"", -1, loop->name(), index,
                                    ShapeUtil::ByteSizeOf(loop->shape().tuple_shapes(index))};
      // Written a slice at a time by a loop whose result feeds only this one.
      const HloInstruction* source = loop->operand(0)->operand(index);
      if (source->opcode() == HloOpcode::kGetTupleElement &&
          source->operand(0)->opcode() == HloOpcode::kWhile && source->users().size() == 1 &&
          ElementReads(*source->operand(0), source->tuple_index()).size() == 1 &&
          SliceWriter(*source->operand(0), source->tuple_index()) != nullptr) {
        stack.writer = source->operand(0)->name();
        stack.writer_index = source->tuple_index();
        paired_writers.insert({source->operand(0), source->tuple_index()});
      }
      stacks.push_back(std::move(stack));
    }
  }
  for (const HloInstruction* loop : computation.instructions()) {
    if (loop->opcode() != HloOpcode::kWhile || !loop->shape().IsTuple()) continue;
    for (int64_t index = 0; index < loop->shape().tuple_shapes_size(); ++index) {
      if (paired_writers.contains({loop, index}) || SliceWriter(*loop, index) == nullptr) continue;
      stacks.push_back(
          {loop->name(), index, "", -1, ShapeUtil::ByteSizeOf(loop->shape().tuple_shapes(index))});
    }
  }
  for (const LoopStateOffload::Stack& stack : stacks) {
    offloads.push_back({computation.name(), {stack}});
  }
  if (stacks.size() > 1) offloads.push_back({computation.name(), stacks});
  return offloads;
}

absl::Status ApplyLoopStateOffload(HloModule& module, const LoopStateOffload& offload) {
  HMO_ASSIGN_OR_RETURN(ScheduledComputation scheduled,
                       FindScheduledComputation(module, offload.computation));
  ScheduledRewrite caller(module, *scheduled.computation);
  const auto find_loop = [&](const std::string& name) -> absl::StatusOr<HloInstruction*> {
    HloInstruction* loop = scheduled.computation->GetInstructionWithName(name);
    if (loop == nullptr || loop->opcode() != HloOpcode::kWhile) {
      return absl::NotFoundError(absl::StrCat("no loop ", name, " in ", offload.computation));
    }
    return loop;
  };
  for (const LoopStateOffload::Stack& stack : offload.stacks) {
    HloInstruction* writer = nullptr;
    HloInstruction* reader = nullptr;
    if (!stack.writer.empty()) {
      HMO_ASSIGN_OR_RETURN(writer, find_loop(stack.writer));
      if (SliceWriter(*writer, stack.writer_index) == nullptr) {
        return absl::FailedPreconditionError(
            absl::StrCat(stack.writer, "{", stack.writer_index, "} is not written by slices"));
      }
    }
    if (!stack.reader.empty()) {
      HMO_ASSIGN_OR_RETURN(reader, find_loop(stack.reader));
      if (!IsSliceRead(*reader, stack.reader_index)) {
        return absl::FailedPreconditionError(
            absl::StrCat(stack.reader, "{", stack.reader_index, "} is not read by slices"));
      }
    }
    if (writer != nullptr) {
      HMO_RETURN_IF_ERROR(CopyInitialValueToHost(caller, *writer, stack.writer_index));
      MoveElementToHost(*writer, stack.writer_index);
      HMO_RETURN_IF_ERROR(WriteSlicesToHost(module, *writer, stack.writer_index));
      if (reader == nullptr)
        HMO_RETURN_IF_ERROR(CopyResultToDevice(caller, *writer, stack.writer_index));
    }
    if (reader != nullptr) {
      if (writer == nullptr) {
        HMO_RETURN_IF_ERROR(CopyInitialValueToHost(caller, *reader, stack.reader_index));
      }
      MoveElementToHost(*reader, stack.reader_index);
      HMO_RETURN_IF_ERROR(ReadSlicesFromHost(module, *reader, stack.reader_index));
      HMO_RETURN_IF_ERROR(CopyResultToDevice(caller, *reader, stack.reader_index));
    }
  }
  module.RemoveUnusedComputations();
  return absl::OkStatus();
}

}  // namespace hmo
