#include "hmo/verifier/verifier_error.h"

#include "absl/strings/str_cat.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "str_util.h"

namespace hmo {

using verifier_internal::StrAppend;
using verifier_internal::StrCat;
namespace {
std::string InstructionName(const HloInstruction& instruction) {
  return instruction.name().empty() ? std::string("<unnamed>") : instruction.name();
}
}  // namespace

std::string HloVerifierError::ToString() const {
  std::string scope;
  if (!instruction.empty()) {
    scope = StrCat("instruction ", instruction, " in computation ", computation);
  } else if (!computation.empty()) {
    scope = StrCat("computation ", computation);
  } else {
    scope = StrCat("module ", module);
  }
  return StrCat(scope, ": ", message, " (rule: ", rule, ")");
}

VerifierErrorSink::VerifierErrorSink(const HloModule& module, size_t limit)
    : module_(module), limit_(limit) {}

void VerifierErrorSink::Add(HloVerifierError error) {
  if (full()) return;
  error.module = module_.name();
  errors_.push_back(std::move(error));
}

void VerifierErrorSink::AddModuleError(HloModule::HeaderAttribute where, std::string_view rule,
                                       std::string message) {
  HloInstruction::SourceLocation location = module_.header_location(where);
  if (!location.known()) location = module_.header_location(HloModule::HeaderAttribute::kName);
  Add(HloVerifierError{"", "", "", std::string(rule), std::move(message), location.line,
                       location.column});
}

void VerifierErrorSink::AddComputationError(const HloComputation& computation,
                                            std::string_view rule, std::string message) {
  Add(HloVerifierError{"", computation.name(), "", std::string(rule), std::move(message)});
}

void VerifierErrorSink::AddInstructionError(const HloInstruction& instruction,
                                            std::string_view rule, std::string message) {
  std::string computation = instruction.parent() ? instruction.parent()->name() : "<none>";
  Add(HloVerifierError{"", std::move(computation), InstructionName(instruction), std::string(rule),
                       std::move(message), instruction.source_location().line,
                       instruction.source_location().column});
}

void VerifierErrorSink::AddInstructionError(const HloComputation& computation,
                                            const HloInstruction& instruction,
                                            std::string_view rule, std::string message) {
  Add(HloVerifierError{"", computation.name(), InstructionName(instruction), std::string(rule),
                       std::move(message), instruction.source_location().line,
                       instruction.source_location().column});
}

}  // namespace hmo
