#ifndef HMO_PASS_HLO_PASS_H_
#define HMO_PASS_HLO_PASS_H_

// The pass interface: one transformation (or check) of an HLO module.
//
// A pass is small: a kebab-case name, the options it was created with, and
// Run(). Timing, dumping, verifying and change checking are not the pass's
// business; the pass manager does them through instrumentation hooks
// (hmo/pipeline/pass_instrumentation.h).
//
// A pass is made available by registering a PassRegistration (pass_registry.h)
// that carries its name, a one-line description, its PassOptionSchema and a
// factory taking validated PassOptions. The pipeline creates a fresh pass
// object for every module it runs, so a pass may keep per-run state in members.

#include <string_view>

#include "absl/status/statusor.h"

namespace hmo {

class HloModule;
class PassContext;

class HloPass {
 public:
  virtual ~HloPass() = default;

  // Returns the pass's kebab-case name: the one pipelines use, equal to the
  // name it was registered under.
  virtual std::string_view name() const = 0;

  // Runs the pass on `module`. Returns whether it changed the module (its HLO
  // text or its schedule), or an error. `context` gives access to analyses
  // and the loaded plugins; after a run that returns true, cached analyses
  // are dropped except those the pass marks preserved through `context`.
  virtual absl::StatusOr<bool> Run(HloModule& module, PassContext& context) = 0;
};

}  // namespace hmo

#endif  // HMO_PASS_HLO_PASS_H_
