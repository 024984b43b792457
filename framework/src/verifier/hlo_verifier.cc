#include "hmo/verifier/hlo_verifier.h"

#include "absl/strings/str_cat.h"
#include "cycle_checks.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/verifier/alias_verifier.h"
#include "hmo/verifier/schedule_verifier.h"
#include "hmo/ir/shape_equality.h"
#include "instruction_shape_checks.h"
#include "structure_checks.h"
#include "str_util.h"

namespace hmo {

using verifier_internal::StrAppend;
using verifier_internal::StrCat;
namespace {

using verifier_internal::ShapeCheckContext;
using verifier_internal::StructureReport;

// Whether the shape check of `instr` can run: its structure is sound and
// every computation it calls has a root and a consistent parameter list.
bool ShapeCheckable(const HloInstruction& instr, const StructureReport& report) {
  if (report.broken_instructions.contains(&instr)) return false;
  for (const HloInstruction* op : instr.operands()) {
    if (op == nullptr) return false;
  }
  for (const HloComputation* callee : instr.called_computations()) {
    if (callee == nullptr || !report.module_computations.contains(callee) ||
        report.broken_computations.contains(callee)) {
      return false;
    }
  }
  return true;
}

void CheckEntryComputationLayout(const HloModule& module, const HloVerifierOptions& options,
                                 const StructureReport& report, VerifierErrorSink& sink) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr || report.broken_computations.contains(entry) ||
      !module.has_explicit_entry_computation_layout()) {
    return;
  }
  ComputationLayout layout = module.entry_computation_layout();
  if (layout.parameter_count() != entry->num_parameters()) {
    sink.AddModuleError(HloModule::HeaderAttribute::kEntryComputationLayout,
                        "entry-computation-layout",
                        StrCat("entry_computation_layout has ", layout.parameter_count(),
                               " parameters but entry computation ", entry->name(), " has ",
                               entry->num_parameters()));
    return;
  }
  ShapeEqualityOptions eq;
  eq.compare_layouts = options.layout_sensitive;
  eq.ignore_fp_precision = options.allow_mixed_precision;
  for (int64_t k = 0; k < layout.parameter_count(); ++k) {
    const Shape& actual = entry->parameter_instruction(k)->shape();
    if (!ShapesEqual(layout.parameter_shape(k), actual, eq)) {
      sink.AddModuleError(
          HloModule::HeaderAttribute::kEntryComputationLayout, "entry-computation-layout",
          StrCat("entry_computation_layout parameter ", k, " ",
                 layout.parameter_shape(k).ToString(true), " does not match entry parameter ",
                 entry->parameter_instruction(k)->name(), " ", actual.ToString(true)));
      return;
    }
  }
  const Shape& root = entry->root_instruction()->shape();
  if (!ShapesEqual(layout.result_shape(), root, eq)) {
    sink.AddModuleError(
        HloModule::HeaderAttribute::kEntryComputationLayout, "entry-computation-layout",
        StrCat("entry_computation_layout result ", layout.result_shape().ToString(true),
               " does not match the entry root shape ", root.ToString(true)));
  }
}

}  // namespace

void RunHloVerifier(const HloModule& module, const HloVerifierOptions& options,
                    VerifierErrorSink& sink) {
  // Phases 1-2: structure.
  StructureReport report;
  verifier_internal::CheckModuleStructure(module, options, sink, report);
  if (sink.full()) return;
  verifier_internal::CheckCallGraphCycles(module, sink);
  if (sink.full()) return;

  // Phase 3: cycles through data + control edges.
  for (const HloComputation* c : module.computations()) {
    verifier_internal::CheckDataControlCycles(*c, sink);
    if (sink.full()) return;
  }

  // Phase 4: shapes.
  if (options.verify_shapes) {
    ShapeCheckContext ctx(options);
    for (const HloComputation* c : module.computations()) {
      for (const HloInstruction* instr : c->instructions()) {
        if (!ShapeCheckable(*instr, report)) continue;
        if (verifier_internal::ShapeCheckResult v =
                verifier_internal::CheckInstructionShape(*instr, ctx)) {
          sink.AddInstructionError(*c, *instr, v->rule, std::move(v->message));
          if (sink.full()) return;
        }
      }
    }
  }
  if (options.verify_entry_computation_layout) {
    CheckEntryComputationLayout(module, options, report, sink);
    if (sink.full()) return;
  }

  // Phase 5: schedule.
  if (options.verify_schedule) {
    CheckModuleSchedule(module, sink);
    if (sink.full()) return;
  }

  // Phase 6: aliasing.
  if (options.verify_alias_config) CheckModuleAliasing(module, sink);
}

absl::Status VerifyHloModule(const HloModule& module, const HloVerifierOptions& options) {
  VerifierErrorSink sink(module, /*limit=*/1);
  RunHloVerifier(module, options, sink);
  if (sink.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(sink.errors().front().ToString());
}

std::vector<HloVerifierError> CollectVerifierErrors(const HloModule& module,
                                                    const HloVerifierOptions& options) {
  VerifierErrorSink sink(module);
  RunHloVerifier(module, options, sink);
  return sink.TakeErrors();
}

absl::Status HloVerifier::Run(const HloModule& module) const {
  return VerifyHloModule(module, options_);
}

std::vector<HloVerifierError> HloVerifier::CollectErrors(const HloModule& module) const {
  return CollectVerifierErrors(module, options_);
}

}  // namespace hmo
