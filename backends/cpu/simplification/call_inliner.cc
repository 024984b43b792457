#include "cpu/simplification/call_inliner.h"

#include "hmo/rewrites/call_inlining.h"

namespace hmo::cpu {

absl::StatusOr<bool> CallInliner::Run(HloModule& module, PassContext& /*context*/) {
  return InlineCalls(module);
}

}  // namespace hmo::cpu
