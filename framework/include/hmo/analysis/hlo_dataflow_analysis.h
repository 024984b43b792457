#ifndef HMO_ANALYSIS_HLO_DATAFLOW_ANALYSIS_H_
#define HMO_ANALYSIS_HLO_DATAFLOW_ANALYSIS_H_

// HloDataflowAnalysis: the HloValues of a module and, for every position, the
// set of values that may appear there (XLA's
// xla/hlo/analysis/hlo_dataflow_analysis.h).
//
// Which instructions define values:
//   * most ops define a value at every index of their shape;
//   * tuple and copy define only the top-level value ({}); nested values flow
//     from their operands;
//   * get-tuple-element, while, call, conditional, domain, add-dependency and
//     opt-barrier define nothing: their values flow from operands or callees;
//   * bitcast defines nothing unless `bitcast_defines_value`;
//   * parameters define values in the entry, in computations without callers
//     and in embedded computations (fusion, reduce, ...); in control-flow
//     callees they receive the caller's values (call operands; while init and
//     body root; conditional branch operand);
//   * async-start defines its tuple tables and contexts ({2+}), forwards its
//     operands to {0, i} and the wrapped computation's root to {1}; async-update
//     / async-done forward; copy-start defines {}, {0} (the destination) and {2},
//     forwarding the source to {1}; copy-done forwards {0}; send defines {},
//     {1}, {2}; recv-done defines {}, {1}; all-gather-start and
//     collective-permute-start define their tuples and destinations;
//     all-gather-done, collective-permute-done and all-reduce-done forward.
//
// Non-SSA form (ssa_form = false): where several values reach a position
// (while loops, conditional results) the position's set holds all of them.
// SSA form (ssa_form = true, what HloAliasAnalysis uses, as in XLA): a
// position reached by several values gets a new phi value instead; phis that
// turn out to merge a single value are replaced by it afterwards, leaving
// holes in the id sequence exactly where XLA leaves them.
//
// Value ids follow XLA: values are created while visiting computations in
// HloModule::MakeComputationPostOrder order and, within a computation,
// instructions in MakeInstructionPostOrder order, indices in pre-order; phi
// values get the next ids during propagation, which runs a worklist ordered
// by XLA's post-order schedule of the module.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "hmo/analysis/alias_info.h"
#include "hmo/analysis/call_graph.h"
#include "hmo/analysis/hlo_value.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

class PhiGraph;

class HloDataflowAnalysis {
 public:
  struct Options {
    // Create phi values where several values merge (see above).
    bool ssa_form = false;
    // bitcast defines a new value instead of forwarding its operand's.
    bool bitcast_defines_value = false;
  };

  // Runs the analysis. Errors: a computation called both in an embedded and a
  // control-flow context (XLA's Unimplemented).
  static absl::StatusOr<std::unique_ptr<HloDataflowAnalysis>> Run(const HloModule& module,
                                                                  Options options);
  static absl::StatusOr<std::unique_ptr<HloDataflowAnalysis>> Run(const HloModule& module) {
    return Run(module, Options());
  }

  ~HloDataflowAnalysis();

  const HloModule& module() const { return module_; }
  const CallGraph& call_graph() const { return *call_graph_; }
  bool ssa_form() const { return options_.ssa_form; }
  bool bitcast_defines_value() const { return options_.bitcast_defines_value; }

  // Whether `instruction` defines a value at `index` (its set holds exactly
  // one value, defined by `instruction`).
  bool ValueIsDefinedAt(const HloInstruction* instruction, const ShapeIndex& index = {}) const;
  // Precondition: ValueIsDefinedAt(instruction, index).
  const HloValue& GetValueDefinedAt(const HloInstruction* instruction,
                                    const ShapeIndex& index = {}) const;

  const InstructionValueSet& GetInstructionValueSet(const HloInstruction* instruction) const;
  const HloValueSet& GetValueSet(const HloInstruction* instruction,
                                 const ShapeIndex& index = {}) const;
  const HloValueSet& GetValueSet(const HloPosition& position) const {
    return GetValueSet(position.instruction, position.index);
  }
  // Union of the sets at every index of `instruction`.
  HloValueSet GetFlattenedValueSet(const HloInstruction* instruction) const;
  // Precondition: the set at (instruction, index) holds exactly one value.
  const HloValue& GetUniqueValueAt(const HloInstruction* instruction,
                                   const ShapeIndex& index = {}) const {
    return GetValueSet(instruction, index).GetUniqueValue();
  }

  // Precondition: a live value with this id exists.
  const HloValue& GetValue(HloValue::Id id) const;
  // Every value, sorted by id.
  const std::vector<const HloValue*>& values() const { return values_vector_; }
  int64_t value_count() const { return static_cast<int64_t>(values_vector_.size()); }

  // Whether the buffer of `operand` at `operand_index` may be reused for the
  // output of `user` at `user_index` (XLA's rules, in order):
  //  1. cuBLASLt matmul custom-call workspace output {1}: no.
  //  2. operand is a constant: no.
  //  3. user or operand is a change-tiling copy fusion: yes.
  //  4. same shape (layout included) and the pair is an in-place pair of user
  //     that the value's uses confirm: yes.
  //  5. alias_info->MayAlias, when it has an opinion.
  //  6. different shapes: no.
  //  7. loop / input fusion: yes iff every transitive use of the fusion
  //     parameter is elementwise (or a tuple); output fusion with an add root
  //     fed by a dot/convolution: yes iff the parameter's single use is the
  //     add's other operand.
  //  8. while / conditional: yes.
  //  9. dynamic-update-slice, scatter, set-dimension-size: yes iff operand is
  //     used exactly once, as operand 0 (triangular-solve: operand 1).
  // 10. sort: the operand has one user; single-operand sort: yes; else only
  //     the output element with the operand's index.
  // 11. call: the value has exactly two uses, the call and the callee root,
  //     which is elementwise on it.
  // 12. otherwise: yes iff user is elementwise on the operand.
  // Precondition: user is a user of operand. `alias_info` null = default.
  bool CanShareOperandBufferWithUser(HloInstruction* operand, const ShapeIndex& operand_index,
                                     HloInstruction* user, const ShapeIndex& user_index,
                                     const AliasInfo* alias_info = nullptr) const;

  // In-place pairs of `instruction` under the default AliasInfo.
  static std::vector<std::pair<HloOperandIndex, ShapeIndex>> GetInPlaceInputOutputPairs(
      const HloInstruction* instruction);

  // Whether every transitive user of `instruction` reads it elementwise or
  // only forwards it in a tuple.
  static bool AreTransitiveUsesElementwiseOrTuple(const HloInstruction* instruction);

  // Instruction value sets and values, one per line (debugging aid).
  std::string ToString() const;

 private:
  HloDataflowAnalysis(const HloModule& module, Options options);

  absl::Status InitializeInstructionValueSets();
  void Propagate();
  void OptimizePhiValues();
  void DeleteMarkedValues();

  HloValue* NewHloValue(HloInstruction* instruction, const ShapeIndex& index, bool is_phi);
  void MarkValueForDeletion(HloValue::Id id);
  InstructionValueSet& GetMutableInstructionValueSet(const HloInstruction* instruction);
  HloValueSet& GetMutableValueSet(const HloInstruction* instruction, const ShapeIndex& index = {});

  // Recomputes the value set of `instruction` from its inputs; returns
  // whether it changed.
  bool UpdateInstructionValueSet(HloInstruction* instruction);
  bool Phi(HloInstruction* instruction, absl::Span<const InstructionValueSet* const> inputs);
  bool UpdateParameterValueSet(HloInstruction* parameter);
  bool UpdateWhileValueSet(HloInstruction* xla_while);
  bool UpdateConditionalValueSet(HloInstruction* conditional);
  bool UpdateCallValueSet(HloInstruction* call);
  bool UpdateTupleValueSet(HloInstruction* tuple);
  bool UpdateGetTupleElementValueSet(HloInstruction* gte);
  bool UpdateCopyValueSet(HloInstruction* copy);
  bool UpdateForwardingValueSet(HloInstruction* instruction);  // domain, opt-barrier
  bool UpdateWholeOperandValueSet(HloInstruction* instruction);  // bitcast, add-dependency
  bool UpdateSendValueSet(HloInstruction* send);
  bool UpdateRecvDoneValueSet(HloInstruction* recv_done);
  bool UpdateCopyStartValueSet(HloInstruction* copy_start);
  bool UpdateCopyDoneValueSet(HloInstruction* copy_done);
  bool UpdateAsyncStartValueSet(HloInstruction* async_start);
  bool UpdateAsyncUpdateValueSet(HloInstruction* async_update);
  bool UpdateAsyncDoneValueSet(HloInstruction* async_done);
  bool UpdateAllGatherStartValueSet(HloInstruction* all_gather_start);
  bool UpdateAllGatherDoneValueSet(HloInstruction* all_gather_done);
  bool UpdateAllReduceDoneValueSet(HloInstruction* all_reduce_done);
  bool UpdateCollectivePermuteStartValueSet(HloInstruction* start);
  bool UpdateCollectivePermuteDoneValueSet(HloInstruction* done);

  const HloModule& module_;
  Options options_;
  std::unique_ptr<CallGraph> call_graph_;
  std::unique_ptr<PhiGraph> phi_graph_;

  // Indexed by value id; null for deleted (optimized-away phi) values.
  std::vector<std::unique_ptr<HloValue>> values_;
  std::vector<HloValue::Id> value_ids_to_delete_;
  std::vector<const HloValue*> values_vector_;
  absl::flat_hash_map<const HloInstruction*, std::unique_ptr<InstructionValueSet>> value_sets_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_HLO_DATAFLOW_ANALYSIS_H_
