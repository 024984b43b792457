#include "structure_checks.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "str_util.h"

namespace hmo::verifier_internal {
namespace {

constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

struct OperandRange {
  int64_t min;
  int64_t max;
  // 0: any count; 2: count must be even; 1: count must be odd.
  int parity = -1;
};

OperandRange OperandRangeFor(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAfterAll:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kCall:
    case HloOpcode::kCustomCall:
    case HloOpcode::kFusion:
    case HloOpcode::kTuple:
      return {0, kUnbounded};
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllToAll:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kConcatenate:
    case HloOpcode::kDynamicReshape:
    case HloOpcode::kMap:
    case HloOpcode::kSort:
      return {1, kUnbounded};
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
      return {1, 4};
    case HloOpcode::kConditional:
      return {2, kUnbounded};
    case HloOpcode::kDot:
    case HloOpcode::kRng:
      return {2, 2};
    case HloOpcode::kDynamicSlice:
      return {2, kUnbounded};
    case HloOpcode::kDynamicUpdateSlice:
      return {3, kUnbounded};
    case HloOpcode::kRaggedAllToAll:
      return {6, 6};
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
      return {2, kUnbounded, 0};
    case HloOpcode::kScatter:
      return {3, kUnbounded, 1};
    default: {
      std::optional<int> arity = HloOpcodeArity(opcode);
      if (arity.has_value()) return {*arity, *arity};
      return {0, kUnbounded};
    }
  }
}

std::string DescribeRange(const OperandRange& r) {
  std::string base;
  if (r.min == r.max) {
    base = StrCat("exactly ", r.min);
  } else if (r.max == kUnbounded) {
    base = StrCat("at least ", r.min);
  } else {
    base = StrCat(r.min, " to ", r.max);
  }
  if (r.parity == 0) StrAppend(&base, " (an even number of)");
  if (r.parity == 1) StrAppend(&base, " (an odd number of)");
  return base;
}

struct CalleeRange {
  int64_t min;
  int64_t max;
};

CalleeRange CalleeRangeFor(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kWhile:
    case HloOpcode::kSelectAndScatter:
      return {2, 2};
    case HloOpcode::kConditional:
      return {1, kUnbounded};
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
    case HloOpcode::kMap:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kScatter:
    case HloOpcode::kScan:
    case HloOpcode::kSort:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kReduceScatter:
      return {1, 1};
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return {1, kUnbounded};
    case HloOpcode::kCustomCall:
    case HloOpcode::kTopK:
      return {0, kUnbounded};
    default:
      return {0, 0};
  }
}

// Membership in an instruction's operand, user and control lists. Scanning a
// list once per edge would be quadratic in the users of one value (a
// parameter read by 10^5 fusions), so long lists get a hash set, built the
// first time they are asked about; the module does not change meanwhile.
class EdgeListMembership {
 public:
  bool Contains(const std::vector<HloInstruction*>& list, const HloInstruction* x) {
    if (list.size() <= kScanLimit) return std::find(list.begin(), list.end(), x) != list.end();
    auto [it, inserted] = sets_.try_emplace(&list);
    if (inserted) it->second.insert(list.begin(), list.end());
    return it->second.contains(x);
  }

 private:
  static constexpr size_t kScanLimit = 16;
  absl::flat_hash_map<const std::vector<HloInstruction*>*, absl::flat_hash_set<const HloInstruction*>>
      sets_;
};

std::string ShapeValidityError(const Shape& shape) {
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      std::string e = ShapeValidityError(shape.tuple_shapes(static_cast<int>(i)));
      if (!e.empty()) return StrCat("tuple element ", i, ": ", e);
    }
    return "";
  }
  if (shape.IsToken() || shape.IsOpaque()) return "";
  if (!shape.IsArray()) return "the shape has no valid element type";
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (shape.dimensions(d) < 0 && shape.dimensions(d) != Shape::kUnboundedSize) {
      return StrCat("dimension ", d, " of ", shape.ToString(), " is negative");
    }
  }
  if (shape.has_layout()) {
    const std::vector<int64_t>& m2m = shape.layout().minor_to_major();
    if (static_cast<int64_t>(m2m.size()) != shape.rank()) {
      return StrCat("layout of ", shape.ToString(), " has ", m2m.size(),
                    " minor_to_major entries for rank ", shape.rank());
    }
    std::vector<int64_t> sorted = m2m;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t i = 0; i < static_cast<int64_t>(sorted.size()); ++i) {
      if (sorted[i] != i) {
        return StrCat("layout of ", shape.ToString(),
                      " is not a permutation of the dimensions");
      }
    }
    // E(n) packs sub-byte elements (s4, u2, ...); XLA allows it only there.
    // Elsewhere the buffer sizes would disagree with what every kernel
    // reads and writes. A type's own width changes nothing.
    const int64_t element_bits = shape.layout().element_size_in_bits();
    const int64_t type_bits = BitWidth(shape.element_type());
    if (element_bits != 0 && element_bits != type_bits &&
        (type_bits >= 8 || element_bits < type_bits || element_bits > 8)) {
      return StrCat("layout of ", shape.ToString(), " gives ", element_bits, "-bit elements to ",
                    PrimitiveTypeName(shape.element_type()), " (", type_bits,
                    " bits); E(n) is for sub-byte types, n from their width to 8");
    }
  }
  return "";
}

// Per-computation structural checks; returns whether the computation's root
// and parameters are usable.
void CheckComputation(const HloComputation& comp, const StructureReport& known,
                      VerifierErrorSink& sink, StructureReport& report) {
  auto broken = [&](const HloInstruction* i) { report.broken_instructions.insert(i); };

  // Parent pointers.
  for (const HloInstruction* instr : comp.instructions()) {
    if (sink.full()) return;
    if (instr->parent() != &comp) {
      sink.AddInstructionError(comp, *instr, "instruction-parent",
                               "instruction is listed in the computation but its parent is " +
                                   (instr->parent() ? instr->parent()->name()
                                                    : std::string("not set")));
      broken(instr);
    }
  }

  // Root.
  const HloInstruction* root = comp.root_instruction();
  if (root == nullptr) {
    sink.AddComputationError(comp, "root", "computation has no root instruction");
    report.broken_computations.insert(&comp);
  } else if (root->parent() != &comp) {
    sink.AddComputationError(comp, "root",
                             StrCat("root instruction ", root->name(),
                                    " does not belong to the computation"));
    report.broken_computations.insert(&comp);
  }

  // Parameter numbering.
  std::vector<const HloInstruction*> params;
  for (const HloInstruction* instr : comp.instructions()) {
    if (instr->opcode() == HloOpcode::kParameter) params.push_back(instr);
  }
  int64_t n = static_cast<int64_t>(params.size());
  std::vector<const HloInstruction*> by_number(n, nullptr);
  for (const HloInstruction* p : params) {
    if (sink.full()) return;
    int64_t k = p->parameter_number();
    if (k < 0 || k >= n) {
      sink.AddInstructionError(comp, *p, "parameter-numbering",
                               StrCat("parameter number ", k, " is out of range: the ",
                                      "computation has ", n, " parameters (numbers 0..",
                                      n - 1, ")"));
      report.broken_computations.insert(&comp);
      continue;
    }
    if (by_number[k] != nullptr) {
      sink.AddInstructionError(comp, *p, "parameter-numbering",
                               StrCat("parameter number ", k, " is also used by ",
                                      by_number[k]->name()));
      report.broken_computations.insert(&comp);
      continue;
    }
    by_number[k] = p;
  }
  if (!report.broken_computations.contains(&comp)) {
    const auto& listed = comp.parameter_instructions();
    bool consistent = static_cast<int64_t>(listed.size()) == n;
    for (int64_t k = 0; consistent && k < n; ++k) consistent = listed[k] == by_number[k];
    if (!consistent) {
      sink.AddComputationError(comp, "parameter-numbering",
                               StrCat("the computation's parameter list (", listed.size(),
                                      " entries) does not match its ", n,
                                      " parameter instructions"));
      report.broken_computations.insert(&comp);
    }
  }

  EdgeListMembership edges;
  for (const HloInstruction* instr : comp.instructions()) {
    if (sink.full()) return;
    // Operand count.
    if (std::optional<std::string> e = CheckOperandCount(*instr)) {
      sink.AddInstructionError(comp, *instr, "operand-count", *e);
      broken(instr);
    }
    // Operands: same computation, and this instruction among their users.
    for (int64_t k = 0; k < instr->operand_count(); ++k) {
      const HloInstruction* op = instr->operand(k);
      if (op == nullptr) {
        sink.AddInstructionError(comp, *instr, "operand-in-computation",
                                 StrCat("operand ", k, " is null"));
        broken(instr);
        continue;
      }
      if (op->parent() != &comp) {
        sink.AddInstructionError(
            comp, *instr, "operand-in-computation",
            StrCat("operand ", k, " (", op->name(), ") belongs to ",
                   op->parent() ? "computation " + op->parent()->name()
                                      : std::string("no computation"),
                   ", not to ", comp.name()));
        broken(instr);
        continue;
      }
      if (!edges.Contains(op->users(), instr)) {
        sink.AddInstructionError(comp, *instr, "user-operand-symmetry",
                                 StrCat("uses ", op->name(), " as operand ", k,
                                        " but is not among its users"));
        broken(instr);
      }
    }
    // Users: each once, in the same computation, and using this instruction.
    absl::flat_hash_set<const HloInstruction*> seen_users;
    for (const HloInstruction* user : instr->users()) {
      if (user == nullptr) {
        sink.AddInstructionError(comp, *instr, "user-operand-symmetry", "has a null user");
        broken(instr);
        continue;
      }
      if (!seen_users.insert(user).second) {
        sink.AddInstructionError(comp, *instr, "user-operand-symmetry",
                                 StrCat("lists user ", user->name(), " more than once"));
        broken(instr);
        continue;
      }
      if (user->parent() != &comp) {
        sink.AddInstructionError(
            comp, *instr, "user-operand-symmetry",
            StrCat("has user ", user->name().empty() ? std::string("<unnamed>") : user->name(),
                   ", which is not in the computation"));
        broken(instr);
      } else if (!edges.Contains(user->operands(), instr)) {
        sink.AddInstructionError(comp, *instr, "user-operand-symmetry",
                                 StrCat("lists ", user->name(),
                                        " as a user but is not one of its operands"));
        broken(instr);
      }
    }
    // Control edges.
    for (const HloInstruction* succ : instr->control_successors()) {
      if (succ == nullptr || succ->parent() != &comp) {
        sink.AddInstructionError(
            comp, *instr, "control-edge",
            StrCat("control successor ", succ ? succ->name() : std::string("<null>"),
                   " is not in the same computation"));
        broken(instr);
      } else if (!edges.Contains(succ->control_predecessors(), instr)) {
        sink.AddInstructionError(comp, *instr, "control-edge",
                                 StrCat("control successor ", succ->name(),
                                        " does not list it as a control predecessor"));
        broken(instr);
      }
    }
    for (const HloInstruction* pred : instr->control_predecessors()) {
      if (pred == nullptr || pred->parent() != &comp) {
        sink.AddInstructionError(
            comp, *instr, "control-edge",
            StrCat("control predecessor ", pred ? pred->name() : std::string("<null>"),
                   " is not in the same computation"));
        broken(instr);
      } else if (!edges.Contains(pred->control_successors(), instr)) {
        sink.AddInstructionError(comp, *instr, "control-edge",
                                 StrCat("control predecessor ", pred->name(),
                                        " does not list it as a control successor"));
        broken(instr);
      } else if (pred == instr) {
        sink.AddInstructionError(comp, *instr, "control-edge",
                                 "has a control edge to itself");
        broken(instr);
      }
    }
    // Called computations.
    if (std::optional<std::string> e = CheckCalledComputationCount(*instr)) {
      sink.AddInstructionError(comp, *instr, "called-computation", *e);
      broken(instr);
    }
    for (size_t k = 0; k < instr->called_computations().size(); ++k) {
      const HloComputation* callee = instr->called_computations()[k];
      if (callee == nullptr) {
        sink.AddInstructionError(comp, *instr, "called-computation",
                                 StrCat("called computation ", k, " is null"));
        broken(instr);
      } else if (!known.module_computations.contains(callee)) {
        sink.AddInstructionError(comp, *instr, "called-computation",
                                 StrCat("calls computation ", callee->name(),
                                        " which is not in the module"));
        broken(instr);
      } else {
        report.callers[callee].push_back(instr);
      }
    }
    // Shape validity.
    std::string shape_error = ShapeValidityError(instr->shape());
    if (!shape_error.empty()) {
      sink.AddInstructionError(comp, *instr, "shape-valid", shape_error);
      broken(instr);
    }
  }
}

}  // namespace

std::optional<std::string> CheckOperandCount(const HloInstruction& instruction) {
  OperandRange r = OperandRangeFor(instruction.opcode());
  int64_t n = instruction.operand_count();
  bool ok = n >= r.min && n <= r.max;
  if (r.parity == 0) ok = ok && n % 2 == 0;
  if (r.parity == 1) ok = ok && n % 2 == 1;
  if (ok && instruction.opcode() == HloOpcode::kConditional &&
      instruction.branch_count() > 0 && n != instruction.branch_count() + 1) {
    return StrCat("conditional with ", instruction.branch_count(),
                  " branches needs ", instruction.branch_count() + 1,
                  " operands (branch index plus one per branch), got ", n);
  }
  if (ok) return std::nullopt;
  return StrCat(HloOpcodeString(instruction.opcode()), " takes ", DescribeRange(r),
                " operands, got ", n);
}

std::optional<std::string> CheckCalledComputationCount(const HloInstruction& instruction) {
  CalleeRange r = CalleeRangeFor(instruction.opcode());
  int64_t n = static_cast<int64_t>(instruction.called_computations().size());
  if (n >= r.min && n <= r.max) return std::nullopt;
  std::string want = r.min == r.max                ? StrCat("exactly ", r.min)
                     : r.max == kUnbounded          ? StrCat("at least ", r.min)
                                                    : StrCat(r.min, " to ", r.max);
  return StrCat(HloOpcodeString(instruction.opcode()), " calls ", want,
                " computations, got ", n);
}

void CheckModuleStructure(const HloModule& module, const HloVerifierOptions& options,
                          VerifierErrorSink& sink, StructureReport& report) {
  for (const HloComputation* c : module.computations()) report.module_computations.insert(c);

  // Entry computation.
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) {
    sink.AddModuleError(HloModule::HeaderAttribute::kName, "entry-computation",
                        "module has no entry computation");
  } else if (!report.module_computations.contains(entry)) {
    sink.AddModuleError(
        HloModule::HeaderAttribute::kName, "entry-computation",
        StrCat("entry computation ", entry->name(), " is not one of the module's computations"));
  }

  // Computation parents and unique names.
  // Instruction names need only be unique per computation: the parser keeps
  // names as written, and XLA's own test modules repeat parameter names
  // across computations (dynamic_update_slice_inplace_bf16.hlo).
  absl::flat_hash_map<std::string, const HloComputation*> computation_names;
  for (const HloComputation* c : module.computations()) {
    if (sink.full()) return;
    if (c->parent() != &module) {
      sink.AddComputationError(*c, "computation-parent",
                               "computation is listed in the module but its parent is another "
                               "module");
    }
    if (!options.verify_unique_names) continue;
    if (!computation_names.emplace(c->name(), c).second) {
      sink.AddComputationError(*c, "unique-names",
                               StrCat("computation name ", c->name(),
                                      " is used by more than one computation"));
    }
    absl::flat_hash_set<std::string> instruction_names;
    for (const HloInstruction* i : c->instructions()) {
      if (!instruction_names.insert(i->name()).second) {
        sink.AddInstructionError(*c, *i, "unique-names",
                                 "instruction name is used more than once in the computation");
      }
    }
  }

  // Per computation.
  StructureReport known;
  known.module_computations = report.module_computations;
  for (const HloComputation* c : module.computations()) {
    if (sink.full()) return;
    CheckComputation(*c, known, sink, report);
  }
  if (sink.full()) return;

  // The entry is not called by anything.
  if (entry != nullptr) {
    auto it = report.callers.find(entry);
    if (it != report.callers.end() && !it->second.empty()) {
      // At the call, so that the error has a position.
      const HloInstruction& caller = *it->second.front();
      sink.AddInstructionError(*caller.parent(), caller, "entry-computation",
                               StrCat("entry computation ", entry->name(), " is called by ",
                                      caller.name()));
    }
  }

  // Fusion computations: called by exactly one instruction, a fusion.
  for (const HloComputation* c : module.computations()) {
    if (sink.full()) return;
    auto it = report.callers.find(c);
    if (it == report.callers.end()) continue;
    const std::vector<const HloInstruction*>& callers = it->second;
    auto is_fusion = [](const HloInstruction* i) { return i->opcode() == HloOpcode::kFusion; };
    bool called_by_fusion = std::any_of(callers.begin(), callers.end(), is_fusion);
    if (!called_by_fusion || callers.size() == 1) continue;
    std::vector<std::string> names;
    for (const HloInstruction* i : callers) names.push_back(i->name());
    sink.AddComputationError(*c, "fusion-caller",
                             StrCat("fusion computation must be called by exactly one ",
                                    "fusion instruction, but is called by ",
                                    absl::StrJoin(names, ", ")));
  }
}

}  // namespace hmo::verifier_internal
