#ifndef HMO_VERIFIER_VERIFIER_ERROR_H_
#define HMO_VERIFIER_VERIFIER_ERROR_H_

// One violation found by the HLO verifier, and the sink that collects them.
//
// Text form (HloVerifierError::ToString), by scope:
//   instruction add.3 in computation main: <message> (rule: elementwise-shapes)
//   computation main: <message> (rule: root)
//   module m: <message> (rule: alias-size)
// `rule` is a stable kebab-case identifier (see hlo_verifier.h for the list);
// tests and tools match on it, so renaming one is an interface change.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hmo/ir/hlo_module.h"

namespace hmo {

class HloComputation;
class HloInstruction;

struct HloVerifierError {
  // Name of the module the violation was found in.
  std::string module;
  // Name of the computation, or empty for a module-level violation.
  std::string computation;
  // Name of the instruction, or empty for a computation/module-level one.
  std::string instruction;
  // Stable rule identifier, e.g. "elementwise-shapes".
  std::string rule;
  // What is wrong, one sentence without trailing period.
  std::string message;
  // Where the instruction (a module-level error: the header attribute) was
  // written, when the module was parsed ({0, 0} otherwise).
  int64_t line = 0;
  int64_t column = 0;

  std::string ToString() const;
};

// Accumulates errors up to a limit; checks stop early once full() (the
// first-error entry point uses limit 1). Not thread-safe.
class VerifierErrorSink {
 public:
  // limit 0 means unlimited.
  explicit VerifierErrorSink(const HloModule& module, size_t limit = 0);

  // Positioned at the header attribute `where` (the module's name when the
  // text had no such attribute).
  void AddModuleError(HloModule::HeaderAttribute where, std::string_view rule, std::string message);
  void AddComputationError(const HloComputation& computation, std::string_view rule,
                           std::string message);
  void AddInstructionError(const HloInstruction& instruction, std::string_view rule,
                           std::string message);
  // The instruction's parent may be missing or wrong; the computation it
  // was found in is named explicitly.
  void AddInstructionError(const HloComputation& computation, const HloInstruction& instruction,
                           std::string_view rule, std::string message);

  bool full() const { return limit_ != 0 && errors_.size() >= limit_; }
  bool empty() const { return errors_.empty(); }
  size_t size() const { return errors_.size(); }
  const std::vector<HloVerifierError>& errors() const { return errors_; }
  std::vector<HloVerifierError> TakeErrors() { return std::move(errors_); }

 private:
  void Add(HloVerifierError error);

  const HloModule& module_;
  size_t limit_;
  std::vector<HloVerifierError> errors_;
};

}  // namespace hmo

#endif  // HMO_VERIFIER_VERIFIER_ERROR_H_
